// serve's /metrics read by an independent Prometheus text parser from npm
// (parse-prometheus-text-format 1.1.1; no code shared with src/). Reads the
// exposition text on stdin and prints one line per sample,
//   NAME{k1="v1",k2="v2"} VALUE
// labels sorted by name; a histogram's samples as NAME_count, NAME_sum and
// NAME_bucket{le="..."}, a summary's as NAME_count, NAME_sum and NAME{quantile}.
// Exit 1 (the error on stderr) when the text does not parse, a value is
// not a number, or a family has no TYPE line.
// Usage: node serve_metrics.mjs < METRICS_TEXT
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const parse = require('parse-prometheus-text-format');

const text = fs.readFileSync(0, 'utf8');
let families;
try {
  families = parse(text);
} catch (err) {
  console.error(`serve_metrics: the text does not parse: ${err.message}`);
  process.exit(1);
}
const typed = new Set();
for (const line of text.split('\n')) {
  const m = /^# TYPE (\S+) (\S+)/.exec(line);
  if (m) typed.add(m[1]);
}
const out = [];
let bad = 0;
const num = (fam, v) => {
  const x = Number(v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : v);
  if (Number.isNaN(x) && v !== 'NaN') {
    console.error(`serve_metrics: ${fam}: value '${v}' is not a number`);
    bad++;
  }
  return v;
};
const labels = (l) => {
  const keys = Object.keys(l ?? {}).sort();
  if (!keys.length) return '';
  return '{' + keys.map((k) => `${k}="${l[k]}"`).join(',') + '}';
};
for (const f of families) {
  if (!typed.has(f.name)) {
    console.error(`serve_metrics: family ${f.name} has no TYPE line`);
    bad++;
  }
  for (const m of f.metrics) {
    if (f.type === 'HISTOGRAM' || f.type === 'SUMMARY') {
      out.push(`${f.name}_count${labels(m.labels)} ${num(f.name, m.count)}`);
      out.push(`${f.name}_sum${labels(m.labels)} ${num(f.name, m.sum)}`);
      const parts = f.type === 'HISTOGRAM' ? m.buckets : m.quantiles;
      const key = f.type === 'HISTOGRAM' ? 'le' : 'quantile';
      const suffix = f.type === 'HISTOGRAM' ? '_bucket' : '';
      for (const [k, v] of Object.entries(parts ?? {}))
        out.push(`${f.name}${suffix}${labels({ ...m.labels, [key]: k })} ${num(f.name, v)}`);
    } else {
      out.push(`${f.name}${labels(m.labels)} ${num(f.name, m.value)}`);
    }
  }
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
process.exit(bad ? 1 : 0);
