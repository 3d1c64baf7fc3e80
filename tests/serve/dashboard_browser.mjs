// tests/serve/dashboard_browser.mjs - issue 19's "Done when": the dashboard
// of `zamboni serve` in headless Chromium (Debian's chromium, driven by
// playwright-core), on a demo fleet with history: `zamboni demo`, the queue
// in its SQLite catalog, serve (with ZAMBONI_SERVE_TOKEN) and one worker
// that maintains the demo's tables. It checks:
//   - the login form, once: the cookie is HttpOnly and SameSite=Strict; the
//     API answers 401 without it, 200 with it or with the bearer header;
//   - the API equals the CLI: /api/v1/runs = `zamboni history --json`,
//     /api/v1/tasks = `zamboni tasks list --json`, each table's health
//     (data files, delete files, snapshots) = what `zamboni describe` prints,
//     its plan = what `zamboni plan` prints; every endpoint and field is in
//     docs/api/dashboard-openapi.yaml; serve and worker stop cleanly;
//   - each page (fleet, warehouse, both tables, a task) loads with no console
//     error and no request leaving loopback (every request is routed and one
//     elsewhere fails the test), and the numbers it shows (data-k/data-v)
//     equal the API's;
//   - a task that fails (enqueued on a missing table) shows on the open
//     fleet page within one refresh (10 s) of the API having it;
//   - keyboard: the skip link comes first, and a link is followed by Enter;
//   - axe-core reports no serious or critical violation on any page, on a
//     laptop screen and a phone's; the phone's page has no sideways scroll.
// Screenshots: ARTIFACT_DIR/dashboard-<page>-<laptop|phone>.png.
// Usage: node dashboard_browser.mjs ZAMBONI ARTIFACT_DIR
// Exit 77 (skipped) when /usr/bin/chromium is missing.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
import { resolve } from 'node:path';
const [zb, artifacts] = process.argv.slice(2).map(p => resolve(p));
const CHROMIUM = process.env.ZB_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`SKIP: ${CHROMIUM} is missing (scripts/install-deps.sh installs Debian's chromium)`);
  process.exit(77);
}
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TOKEN = 'dash-test-token-' + process.pid;
const started = Date.now();
const tmp = mkdtempSync(join(tmpdir(), 'zb-dash-'));
const root = join(tmp, 'demo');
mkdirSync(artifacts, { recursive: true });
const env = { ...process.env, ZAMBONI_ROOT: root, ZAMBONI_SERVE_TOKEN: TOKEN,
  ZAMBONI_MEMORY_BUDGET_BYTES: '1073741824' };
delete env.ZAMBONI_URI; delete env.ZAMBONI_QUEUE_URI; delete env.ZAMBONI_WAREHOUSE;
const procs = [];
let browser = null;

function log(...a) { console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a); }
function cli(...args) { return execFileSync(zb, args, { env, cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); }
function cliJson(...args) { return JSON.parse(cli(...args)); }
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function until(what, secs, fn) {
  const end = Date.now() + secs * 1000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${secs} s waiting for ${what}`);
    await sleep(250);
  }
}
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
    s.on('error', rej);
  });
}
function start(name, args) {
  const p = spawn(zb, args, { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  p.out = '';
  p.stdout.on('data', d => { p.out += d; });
  p.stderr.on('data', d => { p.out += d; });
  p.name = name;
  procs.push(p);
  return p;
}
async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}

let failed = false;
try {
  // ---- a demo fleet with history
  execFileSync(zb, ['demo', root], { env, stdio: 'ignore' });
  cli('db', 'migrate');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serve = start('serve', ['serve', '--listen', `127.0.0.1:${port}`, '--plan-interval', '1s']);
  start('worker', ['worker']);
  await until('serve to answer', 15, async () => (await fetch(base + '/livez').catch(() => null))?.ok);
  const auth = { headers: { Authorization: 'Bearer ' + TOKEN } };
  const get = async path => {
    const r = await fetch(base + path, auth);
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json();
  };
  // the fleet is done when every table ran its six operations, none is live
  await until('the demo tables to be maintained', 60, async () => {
    const runs = await get('/api/v1/runs?limit=1000');
    const tasks = await get('/api/v1/tasks');
    return tasks.length === 0 && runs.filter(a => a.outcome === 'success').length >= 12;
  });
  log('fleet maintained');

  // ---- the token: 401 without, the bearer or the cookie with
  assert.equal((await fetch(base + '/api/v1/fleet')).status, 401);
  assert.equal((await fetch(base + '/api/v1/fleet', { headers: { Cookie: 'zamboni_session=00' } })).status, 401);

  // ---- the API equals the CLI (compared while nothing changes: the same
  // answer before and after the CLI's)
  const stable = async (path, args) => {
    for (let i = 0; i < 10; i++) {
      const a = await get(path), c = cliJson(...args), b = await get(path);
      if (JSON.stringify(a) === JSON.stringify(b)) { assert.deepEqual(a, c, `${path} vs zamboni ${args.join(' ')}`); return a; }
    }
    throw new Error(`${path} never stayed still`);
  };
  const runs = await stable('/api/v1/runs?limit=1000', ['history', '--json', '--limit', '1000']);
  await stable('/api/v1/runs?warehouse=demo&table=demo.events', ['history', '--json', '--warehouse', 'demo', 'demo.events']);
  await stable('/api/v1/tasks', ['tasks', 'list', '--json']);
  const wh = await get('/api/v1/warehouses/demo');
  assert.equal(wh.tables.length, 2);
  for (const t of wh.tables) {
    const d = cli('describe', t.table);
    const m = re => { const x = d.match(re); assert.ok(x, `describe ${t.table}: ${re}`); return x; };
    const files = Number(m(/live data files : (\d+)/)[1]);
    const [, pos, eq] = m(/delete files\s+: (\d+) position, (\d+) equality/).map(Number);
    const snaps = Number(m(/snapshots\s+: (\d+)/)[1]);
    assert.deepEqual([t.health.data_files, t.health.delete_files, t.health.snapshots], [files, pos + eq, snaps],
                     `${t.table}: API health vs describe`);
  }
  // the warehouse's figures are folds of the same runs
  const reclaimed = runs.filter(a => a.outcome === 'success' && a.before && a.after)
    .reduce((s, a) => s + Math.max(0, a.before.data_bytes - a.after.data_bytes) + Math.max(0, a.before.metadata_bytes - a.after.metadata_bytes), 0);
  assert.equal(wh.tables.reduce((s, t) => s + t.bytes_reclaimed, 0), reclaimed);
  assert.ok(reclaimed > 0, 'the maintenance reclaimed bytes');
  // every endpoint, and every field the API gives, is in the OpenAPI file
  const spec = readFileSync(new URL('../../docs/api/dashboard-openapi.yaml', import.meta.url), 'utf8');
  const taskId0 = runs.find(a => a.task_id).task_id;
  const answers = {
    '/api/v1/fleet': '/api/v1/fleet', '/api/v1/warehouses': '/api/v1/warehouses',
    '/api/v1/warehouses/{warehouse}': '/api/v1/warehouses/demo',
    '/api/v1/warehouses/{warehouse}/tables/{table}': '/api/v1/warehouses/demo/tables/demo.events',
    '/api/v1/warehouses/{warehouse}/tables/{table}/plan': '/api/v1/warehouses/demo/tables/demo.events/plan',
    '/api/v1/tasks': '/api/v1/tasks', [`/api/v1/tasks/{id}`]: `/api/v1/tasks/${taskId0}`,
    '/api/v1/workers': '/api/v1/workers', '/api/v1/runs': '/api/v1/runs' };
  const keys = (v, out) => {
    if (Array.isArray(v)) v.forEach(x => keys(x, out));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) { if (k !== 'outcomes' && k !== 'progress' && k !== 'options') keys(x, out); out.add(k); }
    return out;
  };
  for (const [doc, path] of Object.entries(answers)) {
    assert.ok(spec.includes(`\n  ${doc}:\n`), `${doc} is not in docs/api/dashboard-openapi.yaml`);
    for (const k of keys(await get(path), new Set()))
      if (!/^(success|failed|lost|abandoned|cancelled|evicted)$/.test(k))
        assert.ok(new RegExp(`\\b${k}:`).test(spec), `${path}: field ${k} is not documented`);
  }
  log('API = CLI, documented');

  // ---- the browser: every request routed, only loopback allowed
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const offsite = [], consoleErrors = [];
  await ctx.route('**/*', route => {
    const u = new URL(route.request().url());
    if (u.hostname !== '127.0.0.1' && u.hostname !== 'localhost') { offsite.push(u.href); return route.abort(); }
    return route.continue();
  });
  const page = await ctx.newPage();
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`); });
  page.on('pageerror', e => consoleErrors.push(`${page.url()}: ${e.message}`));

  // login, once
  await page.goto(base + '/warehouses/demo');
  assert.match(page.url(), /\/login\?next=%2Fwarehouses%2Fdemo|\/login\?next=\/warehouses\/demo/);
  await page.fill('#token', TOKEN);
  await Promise.all([page.waitForURL(base + '/warehouses/demo'), page.press('#token', 'Enter')]);
  const cookie = (await ctx.cookies()).find(c => c.name === 'zamboni_session');
  assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict', 'HttpOnly SameSite=Strict cookie');
  assert.equal(await page.evaluate(() => document.cookie), '', 'the script cannot read the cookie');

  const shown = async () => page.$$eval('[data-row]', rows => rows.map(r => ({ row: r.dataset.row,
    v: Object.fromEntries([...r.querySelectorAll('[data-k]')].map(e => [e.dataset.k, e.dataset.v ?? e.textContent])) })));
  const loaded = async () => page.waitForFunction(() => Number(document.body.dataset.refreshed || 0) >= 1);
  const phone = { width: 390, height: 844 };
  async function check(name, path, compare) {
    const errs = consoleErrors.length;
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(base + path);
    await loaded();
    await compare();
    for (const [label, vp] of [['laptop', { width: 1366, height: 900 }], ['phone', phone]]) {
      await page.setViewportSize(vp);
      await page.evaluate(axeSource);
      const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      const bad = res.violations.filter(v => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(', ')})`), [],
                       `${name} (${label}): axe`);
      if (label === 'phone')
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
                  `${name}: the phone's page scrolls sideways`);
      await page.screenshot({ path: join(artifacts, `dashboard-${name}-${label}.png`), fullPage: true });
    }
    assert.deepEqual(consoleErrors.slice(errs), [], `${name}: console errors`);
    log(`page ${name} ok`);
  }

  // warehouse page: each table's row = the API's
  await check('warehouse', '/warehouses/demo', async () => {
    const api = await get('/api/v1/warehouses/demo');
    const rows = (await shown()).filter(r => api.tables.some(t => t.table === r.row));
    assert.deepEqual(rows.map(r => r.row), api.tables.map(t => t.table), 'tables in the API order (by need)');
    for (const t of api.tables) {
      const r = rows.find(x => x.row === t.table).v;
      assert.deepEqual([r.need, r.data_files, r.delete_files, r.snapshots].map(Number),
                       [t.need, t.health.data_files, t.health.delete_files, t.health.snapshots], t.table);
    }
    const total = await page.$eval('[data-k=reclaimed_total]', e => Number(e.dataset.v));
    assert.equal(total, api.reclaimed.reduce((s, r) => s + r.bytes, 0));
    assert.ok(await page.$('figure svg.chart polyline'), 'the reclaimed chart is drawn');
  });
  for (const t of wh.tables) {
    await check('table-' + t.table.replace(/\W/g, '_'), `/tables/demo/${t.table}`, async () => {
      const api = await get(`/api/v1/warehouses/demo/tables/${t.table}`);
      const attempts = (await shown()).filter(r => r.row === 'attempt');
      assert.equal(attempts.length, api.attempts.length);
      assert.deepEqual(attempts.map(a => a.v.outcome), api.attempts.map(a => a.outcome));
      assert.equal(await page.$$eval('svg.chart', s => s.length), 6, 'six health charts');
      // the plan shown is what `zamboni plan` prints (before its settings)
      const cliPlan = cli('plan', t.table).split('\n  settings')[0] + '\n';
      assert.equal(await page.$eval('[data-k=plan]', e => e.textContent), cliPlan, `${t.table}: plan`);
      assert.equal((await get(`/api/v1/warehouses/demo/tables/${t.table}/plan`)).plan, cliPlan);
      // the data-files chart ends at the latest health measured
      const lastFiles = await page.$eval('figure:first-of-type [data-k=chart-last]', e => Number(e.dataset.v));
      assert.equal(lastFiles, api.attempts.find(a => a.after || a.before).after?.data_files ?? api.attempts.find(a => a.before).before.data_files);
    });
  }
  const taskId = runs.find(a => a.task_id && a.report).task_id;
  await check('task', `/tasks/${taskId}`, async () => {
    const api = await get(`/api/v1/tasks/${taskId}`);
    const logs = await page.$$eval('[data-row=attempt] [data-k=log]', e => e.map(x => x.textContent));
    assert.deepEqual(logs, api.attempts.map(a => a.report || '(no report lines)'));
  });
  // the fleet page last: it stays open for the failing task
  await check('fleet', '/', async () => {
    const api = await get('/api/v1/fleet');
    const v = k => page.$eval(`[data-k=${k}]`, e => Number(e.dataset.v));
    assert.equal(await v('workers'), api.workers.length);
    assert.equal(await v('failures'), api.failures_24h.length);
    assert.equal(await v('planner-cycles') > 0, true);
    const whRow = (await shown()).find(r => r.row === 'demo').v;
    const apiWh = (await get('/api/v1/warehouses')).find(w => w.name === 'demo');
    assert.deepEqual([whRow.tables, whRow.bytes_reclaimed].map(Number), [apiWh.tables, apiWh.bytes_reclaimed]);
  });

  // keyboard: Tab reaches the skip link first; a link is followed by Enter
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement.getAttribute('href') === '/warehouses/demo')) break;
  }
  await Promise.all([page.waitForURL(base + '/warehouses/demo'), page.keyboard.press('Enter')]);
  await page.goto(base + '/');
  await loaded();

  // a task that fails shows on the fleet page within one refresh
  const before = Number(await page.$eval('[data-k=failures]', e => e.dataset.v));
  cli('enqueue', '--warehouse', 'demo', 'demo.missing');
  const seen = await until('the failure in the API', 30, async () => {
    const f = await get('/api/v1/fleet');
    return f.failures_24h.find(a => a.table === 'demo.missing') ? Date.now() : 0;
  });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-row=failure]')]
    .some(r => r.textContent.includes('demo.missing')), null, { timeout: 10500 });
  log(`failure shown ${((Date.now() - seen) / 1000).toFixed(1)} s after the API had it`);
  assert.ok(Number(await page.$eval('[data-k=failures]', e => e.dataset.v)) > before);
  await page.screenshot({ path: join(artifacts, 'dashboard-fleet-failure-laptop.png'), fullPage: true });

  assert.deepEqual(offsite, [], 'requests that left loopback');
  assert.deepEqual(consoleErrors, [], 'console errors');
  assert.equal(serve.exitCode, null, 'serve still runs');
  // a clean stop: SIGTERM, exit 0, and (in a sanitizer build) no report
  for (const p of procs) {
    const done = new Promise(r => p.once('exit', (code, sig) => r([code, sig])));
    p.kill('SIGTERM');
    const [code, sig] = await Promise.race([done, sleep(20000).then(() => ['timeout', null])]);
    assert.equal(code, 0, `${p.name} after SIGTERM: exit ${code} ${sig || ''}`);
    assert.ok(!/Sanitizer|runtime error:/.test(p.out), `${p.name}: a sanitizer report`);
  }
  log('all checks passed');
} catch (e) {
  failed = true;
  console.error('FAIL:', e && e.stack || e);
  for (const p of procs) {
    writeFileSync(join(artifacts, `dashboard-${p.name}.log`), p.out);
    console.error(`--- ${p.name} output (last 3000 bytes; all of it in ${artifacts}/dashboard-${p.name}.log)\n${p.out.slice(-3000)}`);
  }
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
