// Chromium only (Playwright sets a page's locale; the other drivers here cannot): in a page whose
// locale is ar-EG, where the page's own numbers come out in Arabic-Indic digits, every vector
// still passes: partition names and tokens are written with ASCII digits.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { collectErrors, launchChromium, type StaticServer, serveWww } from "./harness.js";
import { RUN_VECTORS, vectors } from "./vector-runner.js";

let server: StaticServer;
let browser: Browser;
before(async () => {
  [server, browser] = await Promise.all([serveWww(), launchChromium()]);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("a page whose locale is ar-EG passes every vector", async () => {
  const page = await browser.newPage({ locale: "ar-EG" });
  const errors = collectErrors(page);
  await page.goto(`${server.origin}/style.css`);
  assert.deepEqual(await page.evaluate(() => [navigator.language, (278).toLocaleString()]), ["ar-EG", "\u0662\u0667\u0668"]);
  // biome-ignore lint/security/noGlobalEval: the vector runner, sent into the page as text
  const result = await page.evaluate(([src, url, v]) => globalThis.eval(src)(url, v), [
    RUN_VECTORS,
    `${server.origin}/attrmap/dist/index.js`,
    vectors,
  ] as const);
  assert.deepEqual(result.fails, []);
  assert.ok(result.checked > 240, `checked ${result.checked}`);
  assert.deepEqual(errors, []);
});
