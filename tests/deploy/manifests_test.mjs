// deploy/kubernetes rendered and checked (issue 20, "Done when"):
//   1. kubectl kustomize of base, overlays/example and cron;
//   2. every object built as its kubernetes-models / @kubernetes-models/keda
//      model and validate()d (types, required fields, enums);
//   3. unknown keys: the models' validators read every property their
//      schema knows, so the object is validated again through a Proxy that
//      records each property read; a key never read is one no schema has
//      (a typo such as terminationGracePeriod, or a field of a newer API);
//   4. the rules of docs/deploy.md that no schema knows: one ScaledJob per
//      size class of ZAMBONI_SIZE_CLASSES with its own /demand?class= URL
//      on the serve Service, maxReplicaCount = max_jobs, the class's cores
//      and memory as request and limit (request == limit in every
//      container), targetValue "1", bearer auth from the Secret's
//      ZAMBONI_SERVE_TOKEN, rollout gradual, grace period >= drain + 30 s,
//      a spill emptyDir at /tmp with ZAMBONI_SPILL_DISK_LIMIT_BYTES a
//      little below its sizeLimit, the annotations, probes on /health and
//      /livez, secrets only through envFrom, references that resolve;
//   5. each rule is shown able to fail: a broken copy of the example
//      rendering for each, which the checks must refuse.
// kubectl also converts the YAML to JSON (annotate --local -o jsonpath
// prints each object as JSON without a cluster): the same reader kubectl
// apply uses, and no YAML parser of our own.
// Usage: node manifests_test.mjs KUBECTL DEPLOY_KUBERNETES_DIR
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as batch from 'kubernetes-models/batch/v1';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';

const [kubectl, root] = process.argv.slice(2);
if (!kubectl || !root) {
  console.error('usage: node manifests_test.mjs KUBECTL DEPLOY_KUBERNETES_DIR');
  process.exit(2);
}

const MODELS = {
  'v1/Namespace': core.Namespace,
  'v1/ServiceAccount': core.ServiceAccount,
  'v1/ConfigMap': core.ConfigMap,
  'v1/Secret': core.Secret,
  'v1/Service': core.Service,
  'apps/v1/Deployment': apps.Deployment,
  'policy/v1/PodDisruptionBudget': policy.PodDisruptionBudget,
  'batch/v1/CronJob': batch.CronJob,
  'keda.sh/v1alpha1/ScaledJob': keda.ScaledJob,
  'keda.sh/v1alpha1/TriggerAuthentication': keda.TriggerAuthentication,
};
// Variables env.sample marks SECRET: never in env[] or a ConfigMap.
const SECRET_VARS = ['ZAMBONI_URI', 'ZAMBONI_PG_READ_URL', 'ZAMBONI_QUEUE_URI',
  'ZAMBONI_SERVE_TOKEN', 'ZAMBONI_CREDENTIAL', 'ZAMBONI_TOKEN',
  'ZAMBONI_S3_SECRET_ACCESS_KEY', 'ZAMBONI_S3_SESSION_TOKEN'];
const NAMESPACE = 'zamboni';
const SECRET = 'zamboni-secrets';

function render(dir) {
  const yaml = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8' });
  const json = execFileSync(kubectl, ['annotate', '--local', '-f', '-', '-o',
    'jsonpath={@}{"\\n"}', 'zamboni-test/none-'], { input: yaml, encoding: 'utf8' });
  return json.split('\n').filter((l) => l.trim()).map((l) => {
    const o = JSON.parse(l);
    // annotate leaves an empty annotations map on objects without one
    if (o.metadata?.annotations && Object.keys(o.metadata.annotations).length === 0)
      delete o.metadata.annotations;
    // kustomize folds a long Secret value's base64 over lines; the API
    // server's decoder (Go's base64) skips the newlines, the model's
    // "byte" format does not.
    if (o.kind === 'Secret')
      for (const k of Object.keys(o.data ?? {})) o.data[k] = o.data[k].replace(/\n/g, '');
    return o;
  });
}

// --- quantities and durations ------------------------------------------------
const BIN = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DEC = { k: 1e3, M: 1e6, G: 1e9, T: 1e12, m: 1e-3 };
function quantity(q) {
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|T|m)?$/.exec(String(q));
  if (!m) throw new Error(`quantity ${q}`);
  const unit = m[2] ? (BIN[m[2]] ?? DEC[m[2]]) : 1;
  return Number(m[1]) * unit;
}
function seconds(d) {
  const m = /^([0-9]+)(s|m|h)?$/.exec(String(d));
  if (!m) throw new Error(`duration ${d}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] ?? 's'];
}

// --- unknown keys ---------------------------------------------------------------
function tracked(value, where, reads) {
  if (value === null || typeof value !== 'object') return value;
  return new Proxy(value, {
    get(t, k, r) {
      const v = Reflect.get(t, k, r);
      if (typeof k !== 'string' || !Object.hasOwn(t, k)) return v;
      const p = Array.isArray(t) ? `${where}[${k}]` : `${where}.${k}`;
      reads.add(p);
      return tracked(v, p, reads);
    },
  });
}
function keyPaths(value, where, out) {
  if (Array.isArray(value)) value.forEach((v, i) => keyPaths(v, `${where}[${i}]`, out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(`${where}.${k}`);
      keyPaths(v, `${where}.${k}`, out);
    }
  return out;
}

// Returns the problems of one object as strings.
function validateObject(o) {
  const id = `${o.kind}/${o.metadata?.name}`;
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) return [`${id}: no model for ${o.apiVersion} ${o.kind}`];
  const problems = [];
  try {
    new Model(o).validate();
  } catch (err) {
    problems.push(`${id}: validate(): ${err.message.split('\n').slice(0, 4).join('; ')}`);
    return problems;
  }
  const reads = new Set();
  try {
    Model.prototype.validate.call(tracked(structuredClone(o), '', reads));
  } catch (err) {
    problems.push(`${id}: validate() through the proxy: ${err.message}`);
  }
  for (const p of keyPaths(o, '', []))
    if (!reads.has(p)) problems.push(`${id}: unknown key ${p.slice(1)}`);
  return problems;
}

// --- the rules ------------------------------------------------------------------
function podSpecOf(o) {
  if (o.kind === 'Deployment') return o.spec.template;
  if (o.kind === 'ScaledJob') return o.spec.jobTargetRef.template;
  if (o.kind === 'CronJob') return o.spec.jobTemplate.spec.template;
  return null;
}
function envValue(c, name, configMaps) {
  const e = (c.env ?? []).find((x) => x.name === name);
  if (e) return e.value;
  for (const f of c.envFrom ?? [])
    if (f.configMapRef && configMaps.get(f.configMapRef.name)?.data?.[name] !== undefined)
      return configMaps.get(f.configMapRef.name).data[name];
  return undefined;
}

function checkRules(objs, { secretExternal }) {
  const bad = [];
  const byKind = (k) => objs.filter((o) => o.kind === k);
  const configMaps = new Map(byKind('ConfigMap').map((o) => [o.metadata.name, o]));
  const secrets = new Map(byKind('Secret').map((o) => [o.metadata.name, o]));
  const services = byKind('Service');

  for (const o of objs)
    if (o.kind !== 'Namespace' && o.metadata.namespace !== NAMESPACE)
      bad.push(`${o.kind}/${o.metadata.name}: namespace '${o.metadata.namespace}', not ${NAMESPACE}`);
  for (const cm of configMaps.values())
    for (const k of Object.keys(cm.data ?? {}))
      if (SECRET_VARS.includes(k)) bad.push(`ConfigMap/${cm.metadata.name}: secret ${k} in a ConfigMap`);

  // Every pod: request == limit, secrets only by envFrom, references resolve.
  for (const o of objs) {
    const tpl = podSpecOf(o);
    if (!tpl) continue;
    const id = `${o.kind}/${o.metadata.name}`;
    const spec = tpl.spec;
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      const r = c.resources ?? {};
      for (const res of ['cpu', 'memory'])
        if (r.requests?.[res] === undefined || r.limits?.[res] === undefined)
          bad.push(`${id} ${c.name}: no ${res} request and limit`);
      const keys = new Set([...Object.keys(r.requests ?? {}), ...Object.keys(r.limits ?? {})]);
      for (const k of keys)
        if (r.requests?.[k] === undefined || r.limits?.[k] === undefined ||
            quantity(r.requests[k]) !== quantity(r.limits[k]))
          bad.push(`${id} ${c.name}: ${k} request ${r.requests?.[k]} != limit ${r.limits?.[k]}`);
      for (const e of c.env ?? [])
        if (SECRET_VARS.includes(e.name)) bad.push(`${id} ${c.name}: secret ${e.name} in env, not envFrom`);
      for (const f of c.envFrom ?? []) {
        if (f.configMapRef && !configMaps.has(f.configMapRef.name))
          bad.push(`${id} ${c.name}: ConfigMap ${f.configMapRef.name} not in the rendering`);
        if (f.secretRef && !secrets.has(f.secretRef.name) &&
            !(secretExternal && f.secretRef.name === SECRET))
          bad.push(`${id} ${c.name}: Secret ${f.secretRef.name} not in the rendering`);
      }
      const vols = new Set((spec.volumes ?? []).map((v) => v.name));
      for (const m of c.volumeMounts ?? [])
        if (!vols.has(m.name)) bad.push(`${id} ${c.name}: mount of missing volume ${m.name}`);
    }
    for (const v of spec.volumes ?? [])
      if (v.configMap && !configMaps.has(v.configMap.name))
        bad.push(`${id}: volume's ConfigMap ${v.configMap.name} not in the rendering`);
  }

  // Pods that run maintenance (workers, the CronJob): spill, drain, annotations.
  function checkWorkerPod(o, c) {
    const id = `${o.kind}/${o.metadata.name}`;
    const tpl = podSpecOf(o);
    const ann = tpl.metadata?.annotations ?? {};
    if (ann['karpenter.sh/do-not-disrupt'] !== 'true')
      bad.push(`${id}: pod annotation karpenter.sh/do-not-disrupt is not "true"`);
    if (ann['cluster-autoscaler.kubernetes.io/safe-to-evict'] !== 'false')
      bad.push(`${id}: pod annotation cluster-autoscaler.kubernetes.io/safe-to-evict is not "false"`);
    const spec = tpl.spec;
    if (spec.restartPolicy !== 'Never') bad.push(`${id}: restartPolicy ${spec.restartPolicy}, not Never`);
    const tmpdir = envValue(c, 'TMPDIR', configMaps) ?? '/tmp';
    const mount = (c.volumeMounts ?? []).find((m) => m.mountPath === tmpdir);
    const vol = mount && spec.volumes.find((v) => v.name === mount.name);
    if (!vol?.emptyDir?.sizeLimit) {
      bad.push(`${id}: no emptyDir with a sizeLimit at ${tmpdir}`);
    } else {
      if (vol.emptyDir.medium === 'Memory') bad.push(`${id}: spill volume in memory`);
      const size = quantity(vol.emptyDir.sizeLimit);
      const lim = Number(envValue(c, 'ZAMBONI_SPILL_DISK_LIMIT_BYTES', configMaps));
      if (!(lim > 0)) bad.push(`${id}: no ZAMBONI_SPILL_DISK_LIMIT_BYTES`);
      else if (!(lim < size && lim >= 0.9 * size))
        bad.push(`${id}: ZAMBONI_SPILL_DISK_LIMIT_BYTES ${lim} not a little below sizeLimit ${size}`);
      const eph = c.resources?.limits?.['ephemeral-storage'];
      if (eph !== undefined && quantity(eph) < size)
        bad.push(`${id}: ephemeral-storage ${eph} below the spill volume ${vol.emptyDir.sizeLimit}`);
    }
    const drain = seconds(envValue(c, 'ZAMBONI_DRAIN_TIMEOUT', configMaps) ?? '0');
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    if (grace < drain + 30)
      bad.push(`${id}: terminationGracePeriodSeconds ${grace} < drain ${drain} + 30`);
    const from = (c.envFrom ?? []).some((f) => f.secretRef?.name === SECRET);
    if (!from) bad.push(`${id}: secrets not through envFrom ${SECRET}`);
  }

  // serve
  const serve = byKind('Deployment').find((d) => d.metadata.name === 'zamboni-serve');
  let svc = null;
  if (serve) {
    const tpl = serve.spec.template;
    const c = tpl.spec.containers.find((x) => x.args?.[0] === 'serve');
    if (serve.spec.replicas !== 2) bad.push(`serve: replicas ${serve.spec.replicas}, not 2`);
    if (!c) {
      bad.push('serve: no container running zamboni serve');
    } else {
      const a = c.args.join(' ');
      if (!a.includes('--listen 0.0.0.0:8650')) bad.push(`serve: args '${a}' lack --listen 0.0.0.0:8650`);
      const port = (p) => (typeof p === 'number' ? p : c.ports?.find((x) => x.name === p)?.containerPort);
      for (const [probe, want] of [['readinessProbe', '/health'], ['livenessProbe', '/livez']]) {
        const g = c[probe]?.httpGet;
        if (g?.path !== want) bad.push(`serve: ${probe} path ${g?.path}, not ${want}`);
        else if (port(g.port) !== 8650) bad.push(`serve: ${probe} port ${g.port} is not 8650`);
      }
      if (!(c.envFrom ?? []).some((f) => f.secretRef?.name === SECRET))
        bad.push(`serve: secrets not through envFrom ${SECRET}`);
    }
    const labels = tpl.metadata.labels ?? {};
    const selects = (sel) => sel && Object.keys(sel).length > 0 &&
      Object.entries(sel).every(([k, v]) => labels[k] === v);
    const pdb = byKind('PodDisruptionBudget').find((p) => selects(p.spec.selector?.matchLabels));
    if (!pdb) bad.push('serve: no PodDisruptionBudget selects its pods');
    else if (!(pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < serve.spec.replicas))
      bad.push(`serve: PDB minAvailable ${pdb.spec.minAvailable} with ${serve.spec.replicas} replicas`);
    svc = services.find((s) => selects(s.spec.selector));
    if (!svc) bad.push('serve: no Service selects its pods');
  }

  // one ScaledJob per size class
  const jobs = byKind('ScaledJob');
  if (jobs.length > 0 || serve) {
    const classesText = configMaps.get('zamboni-config')?.data?.ZAMBONI_SIZE_CLASSES;
    let classes = [];
    try {
      classes = JSON.parse(classesText);
    } catch {
      bad.push(`ZAMBONI_SIZE_CLASSES is not JSON: ${classesText}`);
    }
    const perCore = new Set(classes.map((k) => quantity(k.memory) / k.cores));
    if (perCore.size > 1) bad.push('size classes differ in memory per core');
    if (new Set(classes.map((k) => k.cores)).size !== classes.length)
      bad.push('two size classes have the same cores');
    for (const k of classes)
      if (quantity(k.memory) / k.cores < 4 * 2 ** 30) bad.push(`class ${k.name}: below 4 GiB per core`);
    const auths = new Map(byKind('TriggerAuthentication').map((a) => [a.metadata.name, a]));
    const seen = new Map();
    const urls = new Set();
    for (const j of jobs) {
      const id = `ScaledJob/${j.metadata.name}`;
      const c = j.spec.jobTargetRef.template.spec.containers.find((x) => x.args?.[0] === 'worker');
      if (!c) { bad.push(`${id}: no container running zamboni worker`); continue; }
      const name = envValue(c, 'ZAMBONI_SIZE_CLASS', configMaps);
      const cls = classes.find((k) => k.name === name);
      if (!cls) { bad.push(`${id}: ZAMBONI_SIZE_CLASS '${name}' is not a class of ZAMBONI_SIZE_CLASSES`); continue; }
      if (seen.has(name)) bad.push(`${id}: class ${name} has a ScaledJob already (${seen.get(name)})`);
      seen.set(name, id);
      if (j.spec.maxReplicaCount !== cls.max_jobs)
        bad.push(`${id}: maxReplicaCount ${j.spec.maxReplicaCount} != max_jobs ${cls.max_jobs}`);
      if (j.spec.rollout?.strategy !== 'gradual') bad.push(`${id}: rollout.strategy is not gradual`);
      if (j.spec.jobTargetRef.backoffLimit !== 0) bad.push(`${id}: backoffLimit is not 0`);
      const lim = c.resources?.limits ?? {};
      if (lim.cpu === undefined || quantity(lim.cpu) !== cls.cores)
        bad.push(`${id}: cpu ${lim.cpu} is not the class's ${cls.cores}`);
      if (lim.memory === undefined || quantity(lim.memory) !== quantity(cls.memory))
        bad.push(`${id}: memory ${lim.memory} is not the class's ${cls.memory}`);
      checkWorkerPod(j, c);
      const trig = j.spec.triggers ?? [];
      if (trig.length !== 1 || trig[0].type !== 'metrics-api') {
        bad.push(`${id}: not one metrics-api trigger`);
        continue;
      }
      const md = trig[0].metadata ?? {};
      if (md.targetValue !== '1') bad.push(`${id}: targetValue ${JSON.stringify(md.targetValue)}, not "1"`);
      if (md.valueLocation !== 'demand') bad.push(`${id}: valueLocation ${md.valueLocation}, not demand`);
      if (md.authMode !== 'bearer') bad.push(`${id}: authMode ${md.authMode}, not bearer`);
      let u = null;
      try { u = new URL(md.url); } catch { bad.push(`${id}: url ${md.url} does not parse`); }
      if (u) {
        if (urls.has(md.url)) bad.push(`${id}: url ${md.url} used by another ScaledJob`);
        urls.add(md.url);
        if (u.pathname !== '/demand' || u.searchParams.get('class') !== name)
          bad.push(`${id}: url ${md.url} is not /demand?class=${name}`);
        if (svc) {
          const hosts = [`${svc.metadata.name}.${svc.metadata.namespace}.svc`,
            `${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`];
          if (!hosts.includes(u.hostname)) bad.push(`${id}: url host ${u.hostname} is not the serve Service`);
          if (!svc.spec.ports.some((p) => p.port === Number(u.port)))
            bad.push(`${id}: url port ${u.port} is not a port of the serve Service`);
        }
      }
      const auth = auths.get(trig[0].authenticationRef?.name);
      if (!auth) {
        bad.push(`${id}: authenticationRef ${trig[0].authenticationRef?.name} is no TriggerAuthentication`);
      } else {
        const ref = (auth.spec.secretTargetRef ?? []).find((r) => r.parameter === 'token');
        if (!ref || ref.name !== SECRET || ref.key !== 'ZAMBONI_SERVE_TOKEN')
          bad.push(`${id}: TriggerAuthentication does not send ${SECRET}'s ZAMBONI_SERVE_TOKEN as token`);
        else if (secrets.has(SECRET) && secrets.get(SECRET).data?.ZAMBONI_SERVE_TOKEN === undefined &&
                 secrets.get(SECRET).stringData?.ZAMBONI_SERVE_TOKEN === undefined)
          bad.push(`${id}: Secret ${SECRET} has no ZAMBONI_SERVE_TOKEN`);
      }
    }
    for (const k of classes)
      if (!seen.has(k.name)) bad.push(`class ${k.name} has no ScaledJob`);
  }

  // the cron line as a CronJob
  for (const cj of byKind('CronJob')) {
    const id = `CronJob/${cj.metadata.name}`;
    if (cj.spec.concurrencyPolicy !== 'Forbid') bad.push(`${id}: concurrencyPolicy is not Forbid`);
    const c = podSpecOf(cj).spec.containers.find((x) => x.args?.[0] === 'maintenance');
    if (!c || !/^maintenance --warehouse \S+/.test(c.args.join(' ')))
      bad.push(`${id}: does not run zamboni maintenance --warehouse W`);
    else checkWorkerPod(cj, c);
  }
  return bad;
}

// --- run ------------------------------------------------------------------------
let pass = 0;
let fail = 0;
function report(name, problems) {
  if (problems.length === 0) {
    console.log(`PASS ${name}`);
    pass++;
  } else {
    console.log(`FAIL ${name}`);
    for (const p of problems) console.log(`     ${p}`);
    fail++;
  }
}

// kustomize v4 or later (labels:, the v4 image and patch transformers).
try {
  const v = JSON.parse(execFileSync(kubectl, ['version', '--client', '-o', 'json'],
    { encoding: 'utf8' })).kustomizeVersion ?? '';
  const major = Number(/^v?(\d+)/.exec(v)?.[1] ?? 0);
  report(`kubectl's kustomize ${v} is v4 or later`, major >= 4 ? [] : [`kustomize ${v || 'unknown'}`]);
} catch (err) {
  report('kubectl version --client', [err.message]);
}

const renderings = {};
for (const [dir, opts] of [['base', { secretExternal: true }],
  ['overlays/example', { secretExternal: false }], ['cron', { secretExternal: true }]]) {
  let objs;
  try {
    objs = render(path.join(root, dir));
  } catch (err) {
    report(`kubectl kustomize ${dir}`, [err.message]);
    continue;
  }
  report(`kubectl kustomize ${dir}: ${objs.length} objects`, objs.length ? [] : ['no object']);
  report(`${dir}: every object validates, no unknown key`, objs.flatMap(validateObject));
  report(`${dir}: deploy rules`, checkRules(objs, opts));
  renderings[dir] = { objs, opts };
}

const ex = renderings['overlays/example'];
if (ex) {
  const kinds = ex.objs.map((o) => o.kind);
  report('example: two size classes, two ScaledJobs',
    kinds.filter((k) => k === 'ScaledJob').length === 2 ? [] : [`${kinds.join(', ')}`]);
  // Each check must be able to fail: break a copy of the example, expect
  // the named problem.
  const find = (objs, kind, name) => objs.find((o) => o.kind === kind && (!name || o.metadata.name === name));
  const worker = (objs, cls) => find(objs, 'ScaledJob', `zamboni-worker-${cls}`);
  const wc = (j) => j.spec.jobTargetRef.template.spec.containers[0];
  const env = (c, n) => c.env.find((e) => e.name === n);
  const mutations = [
    ['unknown key in the Deployment spec', /unknown key spec\.replica\b/,
      (o) => { find(o, 'Deployment').spec.replica = 2; }],
    ['unknown key in a pod template of a ScaledJob', /unknown key spec\.jobTargetRef\.template\.spec\.terminationGracePeriod\b/,
      (o) => { worker(o, 'large').spec.jobTargetRef.template.spec.terminationGracePeriod = 330; }],
    ['unknown key in a container', /unknown key .*containers\[0\]\.resource\b/,
      (o) => { wc(worker(o, 'standard')).resource = {}; }],
    ['wrong type', /validate\(\)/, (o) => { find(o, 'Deployment').spec.replicas = 'two'; }],
    ['missing required field', /validate\(\)/, (o) => { delete wc(worker(o, 'standard')).name; }],
    ['grace period below drain + 30 s', /terminationGracePeriodSeconds 329 < drain 300 \+ 30/,
      (o) => { worker(o, 'large').spec.jobTargetRef.template.spec.terminationGracePeriodSeconds = 329; }],
    ['memory request != limit', /memory request 7Gi != limit 8Gi/,
      (o) => { wc(worker(o, 'standard')).resources.requests.memory = '7Gi'; }],
    ['spill limit above the volume', /not a little below sizeLimit/,
      (o) => { env(wc(worker(o, 'standard')), 'ZAMBONI_SPILL_DISK_LIMIT_BYTES').value = String(60 * 2 ** 30); }],
    ['spill limit far below the volume', /not a little below sizeLimit/,
      (o) => { env(wc(worker(o, 'standard')), 'ZAMBONI_SPILL_DISK_LIMIT_BYTES').value = String(10 * 2 ** 30); }],
    ['a class without its ScaledJob', /class large has no ScaledJob/,
      (o) => { o.splice(o.indexOf(worker(o, 'large')), 1); }],
    ['two ScaledJobs on one demand URL', /url .* used by another ScaledJob|has a ScaledJob already/,
      (o) => { const l = worker(o, 'large'); const s = worker(o, 'standard');
               l.spec.triggers[0].metadata.url = s.spec.triggers[0].metadata.url;
               env(wc(l), 'ZAMBONI_SIZE_CLASS').value = 'standard'; }],
    ['demand URL of another class', /is not \/demand\?class=large/,
      (o) => { worker(o, 'large').spec.triggers[0].metadata.url =
               'http://zamboni-serve.zamboni.svc.cluster.local:8650/demand?class=largest'; }],
    ['maxReplicaCount not max_jobs', /maxReplicaCount 3 != max_jobs 4/,
      (o) => { worker(o, 'standard').spec.maxReplicaCount = 3; }],
    ['cpu not the class', /cpu 4 is not the class's 2/,
      (o) => { const r = wc(worker(o, 'standard')).resources; r.requests.cpu = '4'; r.limits.cpu = '4'; }],
    ['targetValue a number', /targetValue 1, not "1"/,
      (o) => { worker(o, 'standard').spec.triggers[0].metadata.targetValue = 1; }],
    ['rollout immediate', /rollout.strategy is not gradual/,
      (o) => { worker(o, 'large').spec.rollout.strategy = 'default'; }],
    ['annotation missing', /karpenter.sh\/do-not-disrupt/,
      (o) => { delete worker(o, 'large').spec.jobTargetRef.template.metadata.annotations['karpenter.sh/do-not-disrupt']; }],
    ['readiness on /livez', /readinessProbe path \/livez, not \/health/,
      (o) => { find(o, 'Deployment').spec.template.spec.containers[0].readinessProbe.httpGet.path = '/livez'; }],
    ['liveness on /health', /livenessProbe path \/health, not \/livez/,
      (o) => { find(o, 'Deployment').spec.template.spec.containers[0].livenessProbe.httpGet.path = '/health'; }],
    ['a secret in env', /secret ZAMBONI_SERVE_TOKEN in env/,
      (o) => { wc(worker(o, 'standard')).env.push({ name: 'ZAMBONI_SERVE_TOKEN', value: 'x' }); }],
    ['token from another key', /does not send zamboni-secrets's ZAMBONI_SERVE_TOKEN/,
      (o) => { find(o, 'TriggerAuthentication').spec.secretTargetRef[0].key = 'TOKEN'; }],
    ['spill in memory', /spill volume in memory/,
      (o) => { worker(o, 'standard').spec.jobTargetRef.template.spec.volumes
               .find((v) => v.name === 'spill').emptyDir.medium = 'Memory'; }],
  ];
  for (const [what, want, mutate] of mutations) {
    const objs = structuredClone(ex.objs);
    mutate(objs);
    const problems = [...objs.flatMap(validateObject), ...checkRules(objs, ex.opts)];
    report(`refused: ${what}`, problems.some((p) => want.test(p)) ? []
      : [`expected a problem matching ${want}, got: ${problems.join(' | ') || 'none'}`]);
  }
}

console.log(`manifests_test: ${pass} passed, ${fail} failed`);
process.exit(fail === 0 ? 0 : 1);
