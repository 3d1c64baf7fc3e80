// Walks the page headers of every column chunk of a Parquet file (DuckDB's
// parquet_metadata() does not show pages) with hyparquet's page-header parser.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parquetMetadata } from 'hyparquet';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { parquetHeader } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/column.js')).href);

/** {types, levelEnc, dataEnc, maxPages, rowGroups, rows} of the file at path. */
export function pageSummary(path) {
    const buf = readFileSync(path);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = parquetMetadata(ab);
    const view = new DataView(ab);
    const types = new Set(), levelEnc = new Set(), dataEnc = new Set();
    let maxPages = 0;
    for (const rg of md.row_groups) {
        for (const col of rg.columns) {
            const m = col.meta_data;
            let off = Number(m.dictionary_page_offset ?? m.data_page_offset);
            if (m.dictionary_page_offset !== undefined && Number(m.dictionary_page_offset) === 0) off = Number(m.data_page_offset);
            const end = off + Number(m.total_compressed_size);
            let pages = 0;
            while (off < end) {
                const reader = { view, offset: off };
                const ph = parquetHeader(reader);
                types.add(ph.type);
                if (ph.data_page_header) {
                    levelEnc.add(`def:${ph.data_page_header.definition_level_encoding}`);
                    levelEnc.add(`rep:${ph.data_page_header.repetition_level_encoding}`);
                    dataEnc.add(ph.data_page_header.encoding);
                }
                if (ph.data_page_header_v2) dataEnc.add(ph.data_page_header_v2.encoding);
                if (ph.type !== 'DICTIONARY_PAGE') pages++;
                off = reader.offset + ph.compressed_page_size;
            }
            maxPages = Math.max(maxPages, pages);
        }
    }
    return { types, levelEnc, dataEnc, maxPages, rowGroups: md.row_groups.length, rows: Number(md.num_rows) };
}
