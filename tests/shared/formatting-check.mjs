// Run by the Node conformance test in a child process under another locale (LANG=ar_EG.UTF-8):
// prints the locale Intl took, how it writes 278, and every vector whose partition name or
// token came out otherwise than the vectors say (none, when no formatting uses the locale).
import { readFileSync } from "node:fs";
import { archiveChunkToken, emailPartition, partitionName } from "attrmap";

const load = (file) => JSON.parse(readFileSync(new URL(`../conformance/${file}`, import.meta.url), "utf8"));
const wrong = [];
const formatting = load("formatting.json");
for (const c of formatting.partitionNameCases) {
  if (partitionName(c.index, c.partitionCount) !== c.expect.partitionName) wrong.push(`name ${c.index}`);
}
for (const c of formatting.tokenCases) {
  if (archiveChunkToken(c.firstSequence) !== c.expect.token) wrong.push(`token ${c.firstSequence}`);
}
for (const c of load("email.json").cases) {
  const name = c.expect.partitionName;
  if (c.input !== undefined && name && emailPartition(c.input).partitionName !== name) wrong.push(`email ${c.id}`);
}
for (const c of load("page-token.json").archiveTokenCases) {
  if (c.expect.token && archiveChunkToken(BigInt(c.firstSequence)) !== c.expect.token) wrong.push(`archive ${c.firstSequence}`);
}
const locale = new Intl.NumberFormat().resolvedOptions().locale;
console.log(JSON.stringify({ locale, digits: (278).toLocaleString(), wrong }));
