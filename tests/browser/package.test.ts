// The package in real Chromium: imported as an ES module by a page and by a module worker
// (the inlined wasm compiles synchronously in both), running every cross-SDK vector.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { emailVectors, fnvVectors, formattingVectors, segmentedVectors, tokenVectors } from "../vectors.js";
import { collectErrors, useChromium } from "./harness.js";

const env = useChromium();

const vectors = {
  email: emailVectors,
  fnv: fnvVectors,
  tokens: tokenVectors,
  segmented: segmentedVectors,
  formatting: formattingVectors,
};

// Runs in the browser (page or worker): every vector through the package; returns failures.
const runVectors = `async (moduleUrl, v) => {
  const m = await import(moduleUrl);
  const fails = [];
  const expand = (r) => r.prefix + r.unit.repeat(r.count) + r.suffix;
  const hex = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
  const attempt = (f) => { try { return { ok: f() }; } catch (e) { return { err: e, isAttrmap: e instanceof m.AttrmapError }; } };
  for (const c of v.fnv.cases) {
    const bytes = c.inputHex !== undefined ? hex(c.inputHex) : hex(c.inputRepeat.unitHex.repeat(c.inputRepeat.count));
    if (m.fnv1a32(bytes) !== c.hash) fails.push("fnv " + c.id);
  }
  for (const c of v.email.cases) {
    const input = c.input ?? (c.inputUtf16 ? String.fromCharCode(...c.inputUtf16) : expand(c.inputRepeat));
    const r = attempt(() => m.emailPartition(input));
    if ("error" in c.expect) {
      if (!r.isAttrmap || r.err.code !== "invalid_email" || r.err.message !== c.expect.error) fails.push("email " + c.id);
    } else {
      const canonical = c.expect.canonicalEmailRepeat ? expand(c.expect.canonicalEmailRepeat) : c.expect.canonicalEmail;
      const p = r.ok;
      const right = p && p.canonicalEmail === canonical && p.hash === c.expect.hash && p.partitionName === c.expect.partitionName;
      if (!right) fails.push("email " + c.id);
    }
  }
  for (const c of v.tokens.cases) {
    const r = attempt(() => m.validatePageToken(c.token));
    const want = "error" in c.expect ? c.expect.error : c.expect.pageToken;
    const got = r.err ? (r.isAttrmap && r.err.code === "invalid_page_token" ? r.err.message : "?") : r.ok;
    if (got !== want) fails.push("token " + c.id);
  }
  for (const c of v.segmented.cases) {
    const r = attempt(() => m.validatePageToken(c.token, c.segments));
    const want = "error" in c.expect ? c.expect.error : c.expect.pageToken;
    const got = r.err ? (r.isAttrmap && r.err.code === "invalid_page_token" ? r.err.message : "?") : r.ok;
    if (got !== want) fails.push("segmented " + c.id);
  }
  for (const c of v.tokens.archiveTokenCases) {
    const input = /^-?[0-9]+$/.test(c.firstSequence) ? BigInt(c.firstSequence) : Number(c.firstSequence);
    const r = attempt(() => m.archiveChunkToken(input));
    const got = r.err ? r.err.code : r.ok;
    if (got !== ("error" in c.expect ? c.expect.error : c.expect.token)) fails.push("archive " + c.firstSequence);
  }
  for (const c of v.formatting.partitionNameCases)
    if (m.partitionName(c.index, c.partitionCount) !== c.expect.partitionName) fails.push("name " + c.index);
  for (const c of v.formatting.tokenCases)
    if (m.archiveChunkToken(c.firstSequence) !== c.expect.token) fails.push("formatting " + c.firstSequence);
  const lists = [v.fnv.cases, v.email.cases, v.tokens.cases, v.tokens.archiveTokenCases, v.segmented.cases,
    v.formatting.partitionNameCases, v.formatting.tokenCases];
  const checked = lists.reduce((n, list) => n + list.length, 0);
  return { fails, checked };
}`;

async function openBlank(locale?: string): Promise<{ page: Page; errors: string[] }> {
  const page = await env.browser.newPage(locale ? { locale } : {});
  const errors = collectErrors(page);
  await page.goto(`${env.server.origin}/style.css`); // any same-origin document will do
  return { page, errors };
}

for (const locale of [undefined, "ar-EG"]) {
  test(`a page${locale ? ` whose locale is ${locale}` : ""} imports the package and passes every vector`, async () => {
    const { page, errors } = await openBlank(locale);
    if (locale) {
      // The locale took effect: the page's own number formatting uses Arabic-Indic digits.
      assert.deepEqual(await page.evaluate(() => [navigator.language, (278).toLocaleString()]), [locale, "\u0662\u0667\u0668"]);
    }
    // biome-ignore lint/security/noGlobalEval: the vector runner, sent into the page as text
    const result = await page.evaluate(([src, url, v]) => globalThis.eval(src)(url, v), [
      runVectors,
      `${env.server.origin}/attrmap/dist/index.js`,
      vectors,
    ] as const);
    assert.deepEqual(result.fails, []);
    assert.ok(result.checked > 240, `checked ${result.checked}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("a module worker imports the package and passes every vector", async () => {
  const { page, errors } = await openBlank();
  const result = await page.evaluate(
    ([src, url, v]) =>
      new Promise<{ fails: string[]; checked: number }>((resolve, reject) => {
        const code = `self.onmessage = async (e) => {
          try { postMessage(await (${src})(e.data.url, e.data.v)); } catch (err) { postMessage({ crash: String(err) }); }
        };`;
        const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })), { type: "module" });
        worker.onmessage = (e) => (e.data.crash ? reject(new Error(e.data.crash)) : resolve(e.data));
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage({ url, v });
      }),
    [runVectors, `${env.server.origin}/attrmap/dist/index.js`, vectors] as const,
  );
  assert.deepEqual(result.fails, []);
  assert.ok(result.checked > 240);
  assert.deepEqual(errors, []);
  await page.close();
});
