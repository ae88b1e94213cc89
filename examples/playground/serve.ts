/**
 * `npm run playground [-- --port N] [--out DIR]`: builds the playground (build.ts: stage the configs,
 * bundle the page from dist/) into DIR (examples/playground/out by default, git-ignored) and serves
 * its site on http://127.0.0.1:N (8173 by default; 0 picks a free port) until Ctrl-C. 127.0.0.1 is
 * a secure context, which WebGPU requires. `servePlayground` is the server alone, for tests.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildPlayground } from './build.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.bin': 'application/octet-stream',
};

/** Serves the files directly in `site` (no subfolder, nothing else) on 127.0.0.1:`port`; its URL. */
export async function servePlayground(site: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    const type = TYPES[path.extname(name)];
    if (!type || name.includes('/') || name.startsWith('.')) {
      res.writeHead(404).end();
      return;
    }
    readFile(path.join(site, name)).then(
      (body) => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '8173' }, out: { type: 'string' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: '${values.port}' is not a port`);
  const out = path.resolve(values.out ?? path.join(import.meta.dirname, 'out'));
  console.error(`staging and bundling into ${path.relative(process.cwd(), out) || '.'} …`);
  const built = await buildPlayground(out);
  console.error(`page.js: ${(built.bundleBytes / 1024).toFixed(0)} KB`);
  const { server, url } = await servePlayground(built.site, port);
  console.log(`scf playground: ${url}  (Ctrl-C stops)`);
  process.once('SIGINT', () => {
    server.closeAllConnections();
    process.exit(0);
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename)
  main().catch((e: unknown) => {
    console.error(`playground: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
