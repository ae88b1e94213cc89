/**
 * `npm run playground [-- --port N] [--out DIR]`: builds the playground (build.ts: the page and its
 * staging worker bundled from dist/, the C parser's files) into DIR (examples/playground/out by
 * default, git-ignored) and serves its site on http://127.0.0.1:N (8173 by default; 0 picks a free
 * port) until Ctrl-C. 127.0.0.1 is a secure context, which WebGPU requires. `servePlayground` is
 * the server alone, for tests: the files directly in the site and in its vendor/ folder, nothing
 * else.
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
  '.wasm': 'application/wasm',
  '.LICENSE': 'text/plain; charset=utf-8',
};

/** Serves the files directly in `site` and in `site/vendor/` on 127.0.0.1:`port`; its URL. */
export async function servePlayground(site: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    const type = TYPES[path.extname(name)];
    if (!type || !/^(vendor\/)?[\w-][\w.-]*$/.test(name)) {
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
  console.error(`bundling into ${path.relative(process.cwd(), out) || '.'} …`);
  const built = await buildPlayground(out);
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  console.error(`page.js: ${kb(built.bundleBytes.page)}, worker.js: ${kb(built.bundleBytes.worker)}`);
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
