/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console is served by the sandbox (`make run`) or CloudFront on the same origin as `/api`, so the dev
// server proxies `/api` and `/config.json` to a running sandbox.
const sandbox = process.env.SANDBOX_URL ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": sandbox, "/config.json": sandbox } },
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 1500 },
  test: {
    environment: "jsdom",
    // Worker threads start faster than forked processes. A worker's files share its module cache (Cloudscape, React
    // and jsdom are imported once per worker, not once per file: half the suite's CPU); src/test/setup.ts empties
    // what a file leaves behind (the rendered DOM, sessionStorage) after every test.
    pool: "threads",
    isolate: false,
    // One worker: `make test` runs this gate beside the unit-to-e2e session (its critical path) on two cores, and a
    // second worker costs CPU that session needs: each worker imports and JIT-compiles Cloudscape, React and jsdom
    // anew (side by side under the same load, 60-62 s of CPU with one worker, 70-72 s with two). Alone on a quiet
    // machine `npx vitest run --maxWorkers=2` finishes sooner.
    maxWorkers: 1,
    globals: true,
    setupFiles: ["src/test/setup.ts"],
    // Beside the Python suites on two cores a test may take several times its quiet-machine time.
    testTimeout: 30_000,
    css: false,
  },
});
