// Directory search panel: the profiles of a company, from the directory's index on
// `companyName` (built the first time it is asked for, with progress), in index order.

import { js, libraryCall } from "./code.js";
import { $, clearOnInvalid, describeError, result, row, text } from "./dom.js";

/** The index this panel reads: its name and key path. */
const INDEX = "byCompany";
const KEY_PATH = "companyName";
/** Rows shown at most; the count covers every match. */
const SHOWN = 100;

let store;

/** The directory, with its company index built if it is not there yet (progress shown as it goes). */
async function indexedDirectory() {
  const directory = await store.customerDirectory();
  if (!(await directory.map.indexes()).some((i) => i.name === INDEX))
    await directory.map.createIndex(INDEX, KEY_PATH, {
      onProgress: ({ done, total }) => result("search-message", true, `Building the index: ${done} of ${total} partitions.`),
    });
  return directory;
}

async function find(event) {
  event.preventDefault();
  const company = $("search-company").value;
  const prefix = $("search-prefix").checked;
  const condition = prefix ? `startsWith(${js(company)})` : `equals(${js(company)})`;
  const rows = $("search-rows");
  rows.replaceChildren();
  $("search-table").hidden = true;
  try {
    const query = (await indexedDirectory()).where(INDEX);
    const matching = prefix ? query.startsWith(company) : query.equals(company);
    const [found, count] = await Promise.all([matching.toArray({ limit: SHOWN }), matching.count()]);
    for (const [, p] of found) rows.append(row([p.companyName, p.emailAddress, p.fullName, p.customerTier]));
    $("search-table").hidden = found.length === 0;
    const shown = count > found.length ? `, the first ${found.length} shown` : "";
    result("search-message", true, count === 0 ? "No profile matches." : `${count} matching profile(s)${shown}.`);
  } catch (error) {
    result("search-message", false, describeError(error));
  }
  text(
    "search-code",
    libraryCall([
      `const directory = await store.customerDirectory({ indexes: { ${INDEX}: ${js(KEY_PATH)} } });`,
      `await directory.where(${js(INDEX)}).${condition}.toArray({ limit: ${SHOWN} }); // [[email, profile], ...]`,
      `await directory.where(${js(INDEX)}).${condition}.count();`,
    ]),
  );
}

export function initSearch(attrmapStore) {
  store = attrmapStore;
  $("search-form").addEventListener("submit", (e) => void find(e));
  clearOnInvalid($("search-form"), "search-message");
}
