// Our Roaring bitmaps against CRoaring (npm roaring-wasm: CRoaring built
// for WebAssembly), in both directions, for sets of every container kind:
//   - CRoaring writes a set (runOptimize, portable format), framed as the
//     64-bit portable format (count, then key + 32-bit bitmap per key);
//     zb-roaring-tool decode must give the same values;
//   - zb-roaring-tool encode writes the same values: the bytes must equal
//     CRoaring's, and CRoaring must read each 32-bit part back.
// Usage: node deletes_roaring_wasm.mjs ZB_ROARING_TOOL WORKDIR
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

let roaring;
try {
  roaring = await import("roaring-wasm");
} catch {
  console.error("roaring-wasm missing: run scripts/install-deps.sh");
  process.exit(1);
}
const { RoaringBitmap32, roaringLibraryInitialize } = roaring;
await roaringLibraryInitialize();

const [tool, work] = process.argv.slice(2);
mkdirSync(work, { recursive: true });

// A deterministic stream (xorshift32).
let seed = 12345;
const rand = () => {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed;
};

// Each case: a map from 32-bit key to the low 32-bit values.
const cases = {
  empty: new Map(),
  single_zero: new Map([[0, [0]]]),
  sparse_array: new Map([[0, Array.from({ length: 50 }, () => rand() % 65536)]]),
  array_4096: new Map([[0, Array.from({ length: 4096 }, (_, i) => i * 16)]]),
  bitmap_4097: new Map([[0, Array.from({ length: 4097 }, (_, i) => i * 15)]]),
  dense_random: new Map([[0, Array.from({ length: 40000 }, () => rand() % 65536)]]),
  runs: new Map([[0, [...Array(1000).keys()].map((i) => i + 5000)
    .concat([...Array(3).keys()].map((i) => 70000 + i))]]),
  three_consecutive: new Map([[0, [7, 8, 9]]]),
  full_container: new Map([[0, [...Array(65536).keys()]]]),
  many_containers: new Map([[0, Array.from({ length: 20000 }, () => rand() % (1 << 22))]]),
  mixed_kinds: new Map([[0, [...Array(9000).keys()].map((i) => 65536 + i * 7)
    .concat([...Array(300).keys()].map((i) => 3 * 65536 + i))
    .concat([1, 2, 3, 4, 5, 6, 7, 9, 100, 65535])]]),
  many_keys: new Map([[0, [1, 2, 3]], [1, [0]], [7, [4294967295]],
    [4294967295, [0, 65536, 131072, 131073]]]),
};

let failures = 0;
const fail = (name, msg) => { failures++; console.error(`FAIL ${name}: ${msg}`); };

for (const [name, groups] of Object.entries(cases)) {
  // CRoaring's bytes, framed as 64-bit portable.
  const parts = [];
  const all = [];
  const keys = [...groups.keys()].sort((a, b) => a - b);
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(keys.length));
  parts.push(head);
  for (const key of keys) {
    const bm = new RoaringBitmap32();
    bm.addMany(groups.get(key));
    bm.runOptimize();
    const k = Buffer.alloc(4);
    k.writeUInt32LE(key);
    parts.push(k, Buffer.from(bm.serialize("portable")));
    for (const v of bm.toArray()) all.push((BigInt(key) << 32n) | BigInt(v));
    bm.dispose();
  }
  const theirs = Buffer.concat(parts);
  all.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const values = Buffer.alloc(all.length * 8);
  all.forEach((v, i) => values.writeBigUInt64LE(v, i * 8));

  // Ours reading theirs.
  writeFileSync(join(work, `${name}.croaring`), theirs);
  try {
    execFileSync(tool, ["decode", join(work, `${name}.croaring`), join(work, `${name}.decoded`)]);
    const got = readFileSync(join(work, `${name}.decoded`));
    if (!got.equals(values)) fail(name, `decoded ${got.length / 8} values, want ${all.length}`);
  } catch (e) {
    fail(name, `decode failed: ${e.stderr}`);
  }

  // Ours writing the same values (shuffled input).
  const shuffled = Buffer.from(values);
  for (let i = all.length - 1; i > 0; i--) {
    const j = rand() % (i + 1);
    const a = shuffled.subarray(i * 8, i * 8 + 8).toString("hex");
    shuffled.set(shuffled.subarray(j * 8, j * 8 + 8), i * 8);
    shuffled.set(Buffer.from(a, "hex"), j * 8);
  }
  writeFileSync(join(work, `${name}.values`), shuffled);
  execFileSync(tool, ["encode", join(work, `${name}.values`), join(work, `${name}.ours`)]);
  const ours = readFileSync(join(work, `${name}.ours`));
  if (!ours.equals(theirs)) {
    fail(name, `our bytes differ from CRoaring's (${ours.length} vs ${theirs.length})`);
  }
  // CRoaring reading ours, one 32-bit bitmap at a time.
  let off = 8;
  const count = Number(ours.readBigUInt64LE(0));
  const back = [];
  for (let i = 0; i < count; i++) {
    const key = ours.readUInt32LE(off);
    off += 4;
    const bm = RoaringBitmap32.deserialize(ours.subarray(off), "portable");
    off += bm.getSerializationSizeInBytes("portable");
    for (const v of bm.toArray()) back.push((BigInt(key) << 32n) | BigInt(v));
    bm.dispose();
  }
  if (off !== ours.length) fail(name, `CRoaring used ${off} of our ${ours.length} bytes`);
  if (back.length !== all.length || back.some((v, i) => v !== all[i])) {
    fail(name, "CRoaring read other values from our bytes");
  }
  if (!failures) console.log(`ok ${name}: ${all.length} values, ${theirs.length} bytes`);
}
console.log(failures ? `${failures} failed` : "all cases agree with CRoaring");
process.exit(failures ? 1 : 0);
