// The cross-SDK vectors as a browser runs them: every vector through the package, in a page or
// a worker, answering the failures and how many cases were checked.
import { emailVectors, fnvVectors, formattingVectors, segmentedVectors, tokenVectors } from "../vectors.js";

export const vectors = {
  email: emailVectors,
  fnv: fnvVectors,
  tokens: tokenVectors,
  segmented: segmentedVectors,
  formatting: formattingVectors,
};

// Runs in the browser (page or worker): every vector through the package; returns failures.
export const RUN_VECTORS = `async (moduleUrl, v) => {
  const m = await import(moduleUrl);
  await m.ready(); // the browser entry fetches its module at the first store operation, or here
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
