// Starts a test server that prints `listening PORT` as its first line
// (s3rver.mjs, fault_proxy.mjs) and hands back its port; the child is
// ended with the calling process.
import { spawn } from 'node:child_process';

const children = new Set();
process.on('exit', () => { for (const c of children) c.kill('SIGTERM'); });

export function startListening(cmd, args, { timeoutMs = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')}: no 'listening PORT' in ${timeoutMs} ms`)), timeoutMs);
    child.on('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before listening`));
    });
    child.stdout.on('data', (d) => {
      text += d;
      const m = /^listening (\d+)\n/.exec(text);
      if (m) {
        clearTimeout(timer);
        child.stdout.resume();
        resolve({ port: Number(m[1]), child,
                  stop: () => { children.delete(child); child.kill('SIGTERM'); } });
      }
    });
  });
}
