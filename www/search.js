// Directory search panel: the profiles of a company, from the directory's index on
// `companyName` (built the first time it is asked for, with progress), in index order, a page
// at a time by the query's keyset cursor (the `next` of a page, never an offset).

import { js, libraryCall } from "./code.js";
import { $, clearOnInvalid, describeError, result, row, text } from "./dom.js";

/** The index this panel reads: its name and key path. */
const INDEX = "byCompany";
const KEY_PATH = "companyName";
/** Rows on a page; the count covers every match. */
const PAGE_SIZE = 20;

let store;
/** The search shown: its condition, and the cursor each page it has shown starts after (the first: null). */
let shown;

/** The directory, with its company index built if it is not there yet (progress shown as it goes). */
async function indexedDirectory() {
  const directory = await store.customerDirectory();
  if (!(await directory.map.indexes()).some((i) => i.name === INDEX))
    await directory.map.createIndex(INDEX, KEY_PATH, {
      onProgress: ({ done, total }) => result("search-message", true, `Building the index: ${done} of ${total} partitions.`),
    });
  return directory;
}

/** The pager's buttons, disabled while a page is read (a click then would read from a cursor about to change). */
const pagerButtons = () => [$("search-previous"), $("search-next")];

/** Shows page `at` of the search in `shown` (cursors of earlier pages are kept, so "Previous" goes back). */
async function showPage(at) {
  const search = shown;
  const { company, prefix, starts } = search;
  const condition = prefix ? `startsWith(${js(company)})` : `equals(${js(company)})`;
  const rows = $("search-rows");
  for (const button of pagerButtons()) button.disabled = true;
  try {
    const query = (await indexedDirectory()).where(INDEX);
    const matching = () => (prefix ? query.startsWith(company) : query.equals(company));
    const [page, count] = await Promise.all([matching().page({ limit: PAGE_SIZE, after: starts[at] }), matching().count()]);
    if (search !== shown) return; // a newer search answers instead
    rows.replaceChildren(...page.entries.map(([, p]) => row([p.companyName, p.emailAddress, p.fullName, p.customerTier])));
    starts.length = at + 1;
    if (page.next !== null) starts.push(page.next);
    search.at = at;
    $("search-table").hidden = page.entries.length === 0;
    $("search-previous").disabled = at === 0;
    $("search-next").disabled = page.next === null;
    $("search-pager").hidden = at === 0 && page.next === null;
    const first = at * PAGE_SIZE + 1;
    const range = count > page.entries.length ? `; ${first} to ${first + page.entries.length - 1} shown` : "";
    result("search-message", true, count === 0 ? "No profile matches." : `${count} matching profile(s)${range}.`);
  } catch (error) {
    if (search !== shown) return;
    rows.replaceChildren();
    $("search-table").hidden = true;
    $("search-pager").hidden = true;
    result("search-message", false, describeError(error));
  }
  const after = at === 0 ? "" : ", after: pageBefore.next";
  text(
    "search-code",
    libraryCall([
      `const directory = await store.customerDirectory({ indexes: { ${INDEX}: ${js(KEY_PATH)} } });`,
      `const page = await directory.where(${js(INDEX)}).${condition}.page({ limit: ${PAGE_SIZE}${after} });`,
      "// page.entries: [[email, profile], ...]; page.next: the next page's `after`, or null at the end",
      `await directory.where(${js(INDEX)}).${condition}.count();`,
    ]),
  );
}

function find(event) {
  event.preventDefault();
  shown = { company: $("search-company").value, prefix: $("search-prefix").checked, starts: [null], at: 0 };
  return showPage(0);
}

export function initSearch(attrmapStore) {
  store = attrmapStore;
  $("search-form").addEventListener("submit", (e) => void find(e));
  $("search-next").addEventListener("click", () => void showPage(shown.at + 1));
  $("search-previous").addEventListener("click", () => void showPage(shown.at - 1));
  clearOnInvalid($("search-form"), "search-message");
}
