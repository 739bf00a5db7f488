// Times @dagrejs/dagre on the graphs written by
//   cargo run --release -p graft-layout --example synth_json -- DIR
// Usage: node dagre.mjs DIR [TIMEOUT_SECONDS=60] [--big-stack]
//
// dagre recurses (network simplex, DFS), so with node's default stack, as in a
// browser, it overflows on graphs of a few thousand nodes; `--big-stack` runs the
// child under `ulimit -s unlimited` with `--stack-size=50000` to time it anyway.
//
// Each graph runs in a child process (dagre.layout is synchronous, so a timeout
// needs a process to kill). Graphs run smallest first; once one does not finish
// within the timeout, every bigger graph is skipped. One JSON line per graph:
// {"graph":..., "nodes":..., "edges":..., "ms":...} (ms is null when it did not
// finish, with a "status" saying why). Options match graft_layout::Options::default:
// rankdir TB, nodesep 24, ranksep 40, margins 16.

import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const self = fileURLToPath(import.meta.url);

async function runOne(file) {
  const { default: dagre } = await import('@dagrejs/dagre');
  const g = JSON.parse(readFileSync(file, 'utf8'));
  const dg = new dagre.graphlib.Graph({ multigraph: true });
  dg.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 40, marginx: 16, marginy: 16 });
  dg.setDefaultEdgeLabel(() => ({}));
  g.nodes.forEach(([width, height], i) => dg.setNode(String(i), { width, height }));
  g.edges.forEach(([a, b], i) => dg.setEdge(String(a), String(b), {}, `e${i}`));
  const t0 = process.hrtime.bigint();
  dagre.layout(dg);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { nodes: g.nodes.length, edges: g.edges.length, ms };
}

if (process.argv[2] === '--one') {
  console.log(JSON.stringify(await runOne(process.argv[3])));
} else {
  const args = process.argv.slice(2);
  const bigStack = args.includes('--big-stack');
  const [dir = 'graphs', timeoutArg = '60'] = args.filter((a) => a !== '--big-stack');
  const timeoutS = Number(timeoutArg);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const p = path.join(dir, f);
      const g = JSON.parse(readFileSync(p, 'utf8'));
      return { graph: f.replace(/\.json$/, ''), p, nodes: g.nodes.length, edges: g.edges.length };
    })
    .sort((a, b) => a.nodes - b.nodes || a.graph.localeCompare(b.graph));
  let limit = Infinity;
  for (const f of files) {
    const head = { graph: f.graph, nodes: f.nodes, edges: f.edges };
    if (f.nodes > limit) {
      console.log(JSON.stringify({ ...head, ms: null, status: 'skipped: a smaller graph did not finish' }));
      continue;
    }
    const nodeArgs = ['--max-old-space-size=16384', self, '--one', f.p];
    const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
    const r = bigStack
      ? spawnSync(
          '/bin/sh',
          ['-c', `ulimit -s unlimited && exec ${[process.execPath, '--stack-size=50000', ...nodeArgs].map(quote).join(' ')}`],
          { timeout: timeoutS * 1000, encoding: 'utf8', maxBuffer: 1 << 20, killSignal: 'SIGKILL' },
        )
      : spawnSync(process.execPath, nodeArgs, {
          timeout: timeoutS * 1000,
          encoding: 'utf8',
          maxBuffer: 1 << 20,
          killSignal: 'SIGKILL',
        });
    if (r.status === 0) {
      const out = JSON.parse(r.stdout.trim().split('\n').pop());
      console.log(JSON.stringify({ ...head, ms: Math.round(out.ms * 10) / 10, stack: bigStack ? 'big' : 'default' }));
    } else {
      const timedOut = r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGKILL';
      const overflow = /Maximum call stack size exceeded/.test(r.stderr ?? '');
      const status = timedOut
        ? `did not finish in ${timeoutS} s`
        : overflow
          ? 'failed: stack overflow (Maximum call stack size exceeded)'
          : `failed: exit ${r.status} signal ${r.signal} ${(r.stderr ?? '').trim().split('\n').slice(-1)[0]}`;
      console.log(JSON.stringify({ ...head, ms: null, stack: bigStack ? 'big' : 'default', status }));
      limit = Math.min(limit, f.nodes);
    }
  }
}
