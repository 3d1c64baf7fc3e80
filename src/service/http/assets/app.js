/*
 * The dashboard's script (built into `zamboni serve`; no library, no
 * network beyond this server's /api/v1). It reads the path, fetches the
 * API, draws the view with DOM nodes (text only, never markup from data)
 * and SVG charts, and fetches again every 10 s without reloading: a view
 * whose data did not change is left alone, so focus and open details
 * stay where they are.
 *
 * Every figure shown carries data-k (what it is) and data-v (the API's
 * number) so that tests compare the page with the API.
 */
'use strict';

const REFRESH_MS = 10000;
let lastText = null;

/* ---- small helpers ---- */

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const k of kids.flat()) {
    if (k === null || k === undefined) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}

function bytes(n) {
  if (n === null || n === undefined) return '–';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = Number(n), i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v.toFixed(0) : v.toFixed(1)) + ' ' + u[i];
}

function when(ms) {
  if (!ms) return '–';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

function secs(ms) {
  return (ms / 1000).toFixed(1) + ' s';
}

/* A number cell or span: data-k names it, data-v holds the API's value. */
function num(k, v, text) {
  return h('span', { 'data-k': k, 'data-v': v === null ? '' : v },
           text !== undefined ? text : (v === null ? '–' : String(v)));
}

function link(href, text) {
  return h('a', { href }, text);
}

function tableLink(wh, t) {
  return link('/tables/' + encodeURIComponent(wh) + '/' + encodeURIComponent(t), t);
}

function outcome(o) {
  return h('span', { class: 'outcome-' + o, 'data-k': 'outcome' }, o);
}

/* A table: caption, column heads (a head starting with '#' is numeric),
 * rows of cells. */
function grid(caption, heads, rows, empty) {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty);
  // focusable, so that a table wider than a phone scrolls from the keyboard
  return h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': caption }, h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, heads.map(t => t.startsWith('#')
      ? h('th', { scope: 'col', class: 'n' }, t.slice(1))
      : h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map(r => h('tr', r.attrs || {},
      r.cells.map((c, i) => h(i === 0 ? 'th' : 'td',
        Object.assign(i === 0 ? { scope: 'row' } : {},
                      heads[i].startsWith('#') ? { class: 'n' } : {}), c)))))));
}

function card(label, k, v, text) {
  return h('div', { class: 'card' }, h('div', { class: 'k' }, label),
           h('div', { class: 'v' }, num(k, v, text)));
}

/*
 * A line chart of points [{t, v}] in SVG, drawn here: axes, the line,
 * a dot per point, the first and last times and the range of values.
 * The figure's caption and the SVG's label say what it shows, in words.
 */
function chart(title, points, fmt) {
  const W = 320, H = 160, L = 56, R = 10, T = 10, B = 28;
  fmt = fmt || (v => String(v));
  const fig = h('figure', {}, h('figcaption', {}, title));
  if (points.length === 0) {
    fig.append(h('p', { class: 'muted' }, 'No measurement yet.'));
    return fig;
  }
  const t0 = Math.min(...points.map(p => p.t)), t1 = Math.max(...points.map(p => p.t));
  const v0 = Math.min(0, ...points.map(p => p.v)), v1 = Math.max(...points.map(p => p.v));
  const x = t => L + (t1 === t0 ? (W - L - R) / 2 : (t - t0) / (t1 - t0) * (W - L - R));
  const y = v => T + (v1 === v0 ? (H - T - B) / 2 : (1 - (v - v0) / (v1 - v0)) * (H - T - B));
  const last = points[points.length - 1];
  const label = title + ': ' + points.length + ' measurement(s) from ' + when(t0) +
    ' to ' + when(t1) + ', from ' + fmt(points[0].v) + ' to ' + fmt(last.v) +
    ' (range ' + fmt(v0) + ' to ' + fmt(v1) + ')';
  const s = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img',
                         'aria-label': label },
    svg('title', {}, label),
    svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }),
    svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end' }, fmt(v1)),
    svg('text', { x: L - 4, y: H - B, 'text-anchor': 'end' }, fmt(v0)),
    svg('text', { x: L, y: H - 8 }, when(t0).slice(5, 16)),
    svg('text', { x: W - R, y: H - 8, 'text-anchor': 'end' }, when(t1).slice(5, 16)),
    svg('polyline', { class: 'line', points: points.map(p => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ') }),
    points.map(p => svg('circle', { class: 'dot', cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 2.5 })));
  fig.append(s, h('p', { class: 'muted' }, 'Now ', num('chart-last', last.v, fmt(last.v))));
  return fig;
}

/* ---- fetching ---- */

async function api(path) {
  const r = await fetch('/api/v1/' + path, { credentials: 'same-origin', cache: 'no-store' });
  if (r.status === 401) { location.assign('/login?next=' + encodeURIComponent(location.pathname)); throw new Error('unauthorized'); }
  const j = await r.json();
  if (!r.ok) { const e = new Error(j.error || ('HTTP ' + r.status)); e.status = r.status; throw e; }
  return j;
}

function crumbs(list) {
  const ol = document.getElementById('crumbs');
  ol.replaceChildren(...list.map(([text, href]) =>
    h('li', {}, href ? link(href, text) : h('span', { 'aria-current': 'page' }, text))));
}

/* ---- views: each returns {title, crumbs, node} from its data ---- */

async function fleetData() {
  const [fleet, whs] = await Promise.all([api('fleet'), api('warehouses')]);
  return { fleet, whs };
}

function fleetView({ fleet, whs }) {
  const total = s => fleet.queue.filter(q => q.state === s).reduce((a, q) => a + q.tasks, 0);
  const p = fleet.planner;
  const node = h('div', {},
    h('div', { class: 'cards' },
      card('Scheduled tasks', 'scheduled', total('scheduled')),
      card('Running tasks', 'running', total('running')),
      card('Excluded tasks', 'excluded', total('excluded')),
      card('Workers', 'workers', fleet.workers.length),
      card('Failures, last 24 h', 'failures', fleet.failures_24h.length),
      card('Planner cycles here', 'planner-cycles', p ? p.cycles : null)),
    h('h2', {}, 'Queue by class and state'),
    grid('Live tasks per size class and state', ['Class', 'State', '#Tasks'],
      fleet.queue.map(q => ({ attrs: { 'data-row': q.size_class + '/' + q.state },
        cells: [q.size_class, q.state, num('tasks', q.tasks)] })), 'The queue is empty.'),
    h('h2', {}, 'Workers'),
    grid('Registered workers and what each runs', ['Worker', 'Class', '#Memory', '#Cores', 'Task', 'Last heartbeat'],
      fleet.workers.map(w => ({ attrs: { 'data-row': w.id }, cells: [w.id, w.size_class,
        num('memory_bytes', w.memory_bytes, bytes(w.memory_bytes)), num('cores', w.cores),
        w.task_id ? h('span', {}, link('/tasks/' + w.task_id, 'task ' + w.task_id),
          w.task ? ' ' + w.task.operation + ' ' + w.task.table : '') : h('span', { class: 'muted' }, 'idle'),
        when(w.heartbeat_ms)] })), 'No worker is registered.'),
    h('h2', {}, 'Failures of the last day'),
    grid('Failed and lost attempts, newest first', ['When', 'Table', 'Operation', 'Outcome', 'Task', 'Message'],
      fleet.failures_24h.map(a => ({ attrs: { 'data-row': 'failure' }, cells: [when(a.finished_ms),
        tableLink(a.warehouse, a.table), a.operation, outcome(a.outcome),
        a.task_id ? link('/tasks/' + a.task_id, 'task ' + a.task_id + ' attempt ' + a.attempt) : 'cli run',
        a.message || ''] })), 'No failure in the last 24 hours.'),
    h('h2', {}, 'The planner'),
    p ? h('dl', { class: 'kv' },
      h('dt', {}, 'Leader here'), h('dd', {}, p.leader ? 'yes' : 'no'),
      h('dt', {}, 'Cycles'), h('dd', {}, num('planner-cycles-2', p.cycles)),
      h('dt', {}, 'Last cycle took'), h('dd', {}, num('planner-last-seconds', p.last_cycle_seconds, p.last_cycle_seconds.toFixed(3) + ' s')),
      h('dt', {}, 'Tasks added since serve started'), h('dd', {}, num('planner-added', p.added)),
      h('dt', {}, 'Refused since then (queue full)'), h('dd', {}, num('planner-refused', p.refused)),
      h('dt', {}, 'Tables seen since then, all cycles'), h('dd', {}, num('planner-tables', p.tables_seen)))
      : h('p', { class: 'muted' }, 'This replica does not plan.'),
    h('h2', {}, 'Warehouses'),
    grid('Warehouses and their last runs', ['Warehouse', '#Tables', '#Live tasks', '#Failures 24 h', 'Last success', '#Reclaimed'],
      whs.map(w => ({ attrs: { 'data-row': w.name }, cells: [link('/warehouses/' + encodeURIComponent(w.name), w.name),
        num('tables', w.tables), num('live_tasks', w.live_tasks), num('failures_24h', w.failures_24h),
        when(w.last_success_ms), num('bytes_reclaimed', w.bytes_reclaimed, bytes(w.bytes_reclaimed))] })),
      'No warehouse is known yet.'));
  return { title: 'Fleet', crumbs: [['Fleet']], node };
}

function ratio(hl) {
  if (!hl || !hl.data_bytes) return null;
  return hl.metadata_bytes / hl.data_bytes;
}

async function warehouseData(name) {
  return api('warehouses/' + encodeURIComponent(name));
}

function warehouseView(w) {
  let sum = 0;
  const pts = w.reclaimed.map(r => ({ t: r.finished_ms, v: (sum += r.bytes) }));
  const node = h('div', {},
    h('h2', {}, 'Tables by need'),
    grid('Tables, the most in need first (health as last measured)',
      ['Table', '#Need', '#Data files', '#Avg file', '#Delete files', '#Snapshots', '#Metadata / data', 'Last maintained', 'Outcome'],
      w.tables.map(t => {
        const hl = t.health;
        const avg = hl && hl.data_files ? Math.round(hl.data_bytes / hl.data_files) : null;
        const r = ratio(hl);
        return { attrs: { 'data-row': t.table }, cells: [tableLink(w.warehouse, t.table), num('need', t.need),
          num('data_files', hl ? hl.data_files : null), num('avg_file_bytes', avg, avg === null ? '–' : bytes(avg)),
          num('delete_files', hl ? hl.delete_files : null), num('snapshots', hl ? hl.snapshots : null),
          num('metadata_ratio', r === null ? null : r.toFixed(3), r === null ? '–' : r.toFixed(3)),
          t.last_finished_ms ? when(t.last_finished_ms) + ' (' + t.last_operation + ')' : 'never',
          t.last_outcome ? outcome(t.last_outcome) : '–'] };
      }), 'No table of this warehouse has run or is queued yet.'),
    h('h2', {}, 'Bytes reclaimed over time'),
    h('div', { class: 'charts' }, chart('Bytes reclaimed, cumulative', pts, bytes)),
    h('p', {}, 'In all: ', num('reclaimed_total', sum, bytes(sum)), '.'));
  return { title: 'Warehouse ' + w.warehouse, crumbs: [['Fleet', '/'], ['Warehouse ' + w.warehouse]], node };
}

/* The plan reads the table's manifests: fetched once per page view, not
 * at every refresh. */
let planOnce = null;
async function tableData(wh, t) {
  const base = 'warehouses/' + encodeURIComponent(wh) + '/tables/' + encodeURIComponent(t);
  if (planOnce === null)
    planOnce = api(base + '/plan').catch(e => ({ error: e.message }));
  const [d, plan] = await Promise.all([api(base), planOnce]);
  return Object.assign({}, d, { plan });
}

/* Health points over time: before at the start, after at the end of
 * each attempt, oldest first. */
function healthSeries(attempts, f) {
  const pts = [];
  for (const a of attempts.slice().reverse()) {
    if (a.before) pts.push({ t: a.started_ms, v: f(a.before) });
    if (a.after) pts.push({ t: a.finished_ms, v: f(a.after) });
  }
  return pts.filter(p => p.v !== null && Number.isFinite(p.v));
}

function reportBlock(a) {
  if (!a.report && !a.message) return null;
  return h('details', {}, h('summary', {}, 'Report'),
    a.message ? h('p', {}, a.message) : null, a.report ? h('pre', {}, a.report) : null);
}

function tableView(d) {
  const A = d.attempts;
  const node = h('div', {},
    h('h2', {}, 'Health over time'),
    h('div', { class: 'charts' },
      chart('Data files', healthSeries(A, x => x.data_files)),
      chart('Average data file size', healthSeries(A, x => x.data_files ? Math.round(x.data_bytes / x.data_files) : null), bytes),
      chart('Delete files', healthSeries(A, x => x.delete_files)),
      chart('Snapshots', healthSeries(A, x => x.snapshots)),
      chart('Data bytes', healthSeries(A, x => x.data_bytes), bytes),
      chart('Metadata bytes', healthSeries(A, x => x.metadata_bytes), bytes)),
    h('h2', {}, 'Current plan'),
    d.plan.error ? h('p', { class: 'error' }, 'No plan: ' + d.plan.error)
      : h('div', {}, h('p', { class: 'muted' }, 'As `zamboni plan` prints it, computed ' + when(d.plan.computed_ms) + ' (reload the page to plan again).'),
          h('pre', { 'data-k': 'plan' }, d.plan.plan)),
    h('h2', {}, 'Live tasks'),
    grid('Tasks of this table in the queue', ['Task', 'Operation', 'State', '#Attempt', 'Class'],
      d.tasks.map(t => ({ attrs: { 'data-row': 'task-' + t.id }, cells: [link('/tasks/' + t.id, 'task ' + t.id), t.operation, t.state,
        num('attempt', t.attempt), t.size_class] })), 'No task of this table is live.'),
    h('h2', {}, 'Recent runs'),
    grid('Attempts on this table, newest first', ['When', 'Operation', 'Outcome', '#Duration', 'Task', 'Report'],
      A.map(a => ({ attrs: { 'data-row': 'attempt' }, cells: [when(a.finished_ms), a.operation, outcome(a.outcome),
        secs(a.finished_ms - a.started_ms),
        a.task_id ? link('/tasks/' + a.task_id, 'task ' + a.task_id) : 'cli run', reportBlock(a)] })),
      'No attempt is recorded for this table.'));
  return { title: 'Table ' + d.table, crumbs: [['Fleet', '/'], ['Warehouse ' + d.warehouse, '/warehouses/' + encodeURIComponent(d.warehouse)], ['Table ' + d.table]], node };
}

async function taskData(id) {
  return api('tasks/' + encodeURIComponent(id));
}

function taskView(d) {
  const t = d.task, first = d.attempts[0] || t;
  const wh = t ? t.warehouse : first.warehouse, tb = t ? t.table : first.table;
  const node = h('div', {},
    t ? h('dl', { class: 'kv' },
      h('dt', {}, 'State'), h('dd', { 'data-k': 'state' }, t.state),
      h('dt', {}, 'Operation'), h('dd', {}, t.operation),
      h('dt', {}, 'Table'), h('dd', {}, tableLink(t.warehouse, t.table)),
      h('dt', {}, 'Class'), h('dd', {}, t.size_class),
      h('dt', {}, 'Attempt'), h('dd', {}, num('attempt', t.attempt), ' of ', num('max_attempts', t.max_attempts)),
      h('dt', {}, 'Worker'), h('dd', {}, t.worker_id || '–'),
      h('dt', {}, 'Last message'), h('dd', {}, t.last_message || '–'))
      : h('p', {}, 'The task is no longer live (it finished or was cancelled); its attempts stay. Table: ', tableLink(wh, tb), '.'),
    h('h2', {}, 'Attempts'),
    d.attempts.length === 0 ? h('p', { class: 'muted' }, 'No attempt has finished yet.') :
    d.attempts.map(a => h('section', { class: 'attempt', 'data-row': 'attempt', 'aria-label': 'Attempt ' + a.attempt },
      h('h3', {}, 'Attempt ', num('attempt', a.attempt), ': ', outcome(a.outcome)),
      h('dl', { class: 'kv' },
        h('dt', {}, 'Operation'), h('dd', {}, a.operation),
        h('dt', {}, 'Started'), h('dd', {}, when(a.started_ms)),
        h('dt', {}, 'Finished'), h('dd', {}, when(a.finished_ms)),
        h('dt', {}, 'Took'), h('dd', {}, num('duration_ms', a.finished_ms - a.started_ms, secs(a.finished_ms - a.started_ms))),
        h('dt', {}, 'Worker'), h('dd', {}, a.worker_id || '–'),
        h('dt', {}, 'Message'), h('dd', {}, a.message || '–')),
      h('p', { class: 'muted' }, 'Log'),
      h('pre', { 'data-k': 'log' }, a.report || '(no report lines)'))));
  return { title: 'Task ' + d.id + ': ' + (t ? t.operation : first.operation), crumbs: [['Fleet', '/'],
    ['Warehouse ' + wh, '/warehouses/' + encodeURIComponent(wh)], ['Table ' + tb, '/tables/' + encodeURIComponent(wh) + '/' + encodeURIComponent(tb)], ['Task ' + d.id]], node };
}

/* ---- the route and the refresh ---- */

function route() {
  const seg = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (seg.length === 0) return [fleetData, fleetView];
  if (seg[0] === 'warehouses' && seg.length === 2) return [() => warehouseData(seg[1]), warehouseView];
  if (seg[0] === 'tables' && seg.length === 3) return [() => tableData(seg[1], seg[2]), tableView];
  if (seg[0] === 'tasks' && seg.length === 2) return [() => taskData(seg[1]), taskView];
  return [async () => { throw new Error('no such page'); }, null];
}

async function refresh() {
  const status = document.getElementById('status');
  const [load, view] = route();
  try {
    const data = await load();
    const text = JSON.stringify(data);
    if (text !== lastText) {
      const v = view(data);
      document.getElementById('title').textContent = v.title;
      document.title = v.title + ': Zamboni';
      crumbs(v.crumbs);
      const open = [...document.querySelectorAll('#view details')].map(d => d.open);
      document.getElementById('view').replaceChildren(v.node);
      const all = document.querySelectorAll('#view details');
      open.forEach((o, i) => { if (o && all[i]) all[i].open = true; });
      lastText = text;
    }
    status.textContent = 'Updated ' + when(Date.now()) + '.';
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
  } catch (e) {
    if (e.message === 'unauthorized') return;
    status.textContent = 'Could not load: ' + e.message + ' (trying again in 10 s).';
    if (lastText === null) {
      document.getElementById('title').textContent = e.status === 404 ? 'Not found' : 'Could not load';
      document.getElementById('view').replaceChildren(h('p', { class: 'error' }, e.message));
      crumbs([['Fleet', '/'], ['Error']]);
    }
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
