// The example app of examples/react-directory, as its README says to run it: `npm install` from
// the registry and the packed tarball, `npm run build` (its strict tsc, then Vite), and driven
// in two tabs of one Chromium profile (a save, an edit, an error, pages, a delete, the activity
// log), with screenshots.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { appFolder, run, TESTS, useBuiltApp } from "./apps.js";
import { newTab, screenshot } from "./harness.js";

const EXAMPLE = join(TESTS, "../examples/react-directory");
const VERSION = JSON.parse(readFileSync(join(TESTS, "../pkg/package.json"), "utf8")).version as string;
const TARBALL = join(TESTS, `../build/attrmap-${VERSION}.tgz`);

/** The example's own install and build. Its tarball path is relative to the repository; the copy names it absolutely. */
async function userBuild(dir: string) {
  const manifest = join(dir, "package.json");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace(`file:../../build/attrmap-${VERSION}.tgz`, `file:${TARBALL}`));
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  await run("npm", ["run", "build"], dir);
}
const built = useBuiltApp(appFolder("react-directory", {}, EXAMPLE), userBuild);

test("the example's dependencies are the versions tested here and the current package", () => {
  const example = JSON.parse(readFileSync(join(EXAMPLE, "package.json"), "utf8"));
  const tests = JSON.parse(readFileSync(join(TESTS, "package.json"), "utf8"));
  for (const [name, version] of Object.entries({ ...example.dependencies, ...example.devDependencies })) {
    if (name === "attrmap") assert.equal(version, `file:../../build/attrmap-${VERSION}.tgz`);
    else assert.equal(version, tests.devDependencies[name], name);
  }
});

const rows = (page: Page, table: string) =>
  page.locator(`${table} tbody tr`).evaluateAll((trs) =>
    trs.map((tr) =>
      Array.from(tr.querySelectorAll("td"))
        .slice(0, 3)
        .map((td) => td.textContent),
    ),
  );
const activity = (page: Page) =>
  page.locator(".activity li").evaluateAll((lis) => lis.map((li) => li.textContent?.replace(/\d+:\d+:\d+.*$/, "").trim()));

/** Fills the form of `page` with `fields` and saves, with `page` the tab in front (as a user's is). */
async function saveWith(page: Page, fields: Record<string, string>) {
  await page.bringToFront(); // Playwright's checks wait for animation frames, which a tab behind gets about once a second
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label).fill(value);
  await page.getByRole("button", { name: "Save" }).click();
}

test("two tabs: saves, edits, errors, pages and deletes show in both, live", async () => {
  const [a, b] = [await newTab(built.browser.context), await newTab(built.browser.context)];
  for (const tab of [a, b]) await tab.goto(`${built.server.origin}/`);
  await saveWith(a, { Email: " Ada@Example.com ", "Full name": "Ada Lovelace", Tier: "gold" });
  await a.getByRole("status").filter({ hasText: "Saved ada@example.com." }).waitFor();
  // The other tab shows it without a reload: the list, the count, the activity.
  await b.getByRole("cell", { name: "Ada Lovelace" }).waitFor();
  assert.deepEqual(await rows(b, "section"), [["ada@example.com", "Ada Lovelace", "gold"]]);
  await b.getByText("1 profiles").waitFor();
  assert.deepEqual(await activity(b), ["#1 saved ada@example.com"]);
  // Edit in the second tab; the first follows.
  await b.bringToFront();
  await b.getByRole("button", { name: "Edit" }).click();
  await b.getByLabel("Full name").fill("Augusta Ada King");
  await b.getByRole("button", { name: "Save" }).click();
  await a.getByRole("cell", { name: "Augusta Ada King" }).waitFor();
  // A bad email is refused with its code and nothing is saved.
  await saveWith(a, { Email: "josé@example.com", "Full name": "José" });
  await a.getByRole("status").filter({ hasText: "invalid_email" }).waitFor();
  await screenshot(a, "example-error-desktop");
  // Eleven more: pages of five, forward and back.
  for (let i = 1; i <= 11; i++) {
    await saveWith(a, { Email: `user${i}@example.com`, "Full name": `User ${i}` });
    await a
      .getByRole("status")
      .filter({ hasText: `Saved user${i}@example.com.` })
      .waitFor();
  }
  await b.getByText("12 profiles").waitFor();
  const seen: string[] = [];
  await b.bringToFront();
  for (let p = 1; p <= 3; p++) {
    await b.getByText(`Page ${p}`, { exact: true }).waitFor();
    const page = (await rows(b, "section")).map((r) => r[0]!);
    assert.equal(page.length, p < 3 ? 5 : 2);
    seen.push(...page);
    if (p < 3) await b.getByRole("button", { name: "Next" }).click();
  }
  assert.equal(await b.getByRole("button", { name: "Next" }).isDisabled(), true);
  assert.deepEqual(
    [...seen].sort(),
    ["ada@example.com", ...Array.from({ length: 11 }, (_, i) => `user${i + 1}@example.com`)].sort(),
  );
  await b.getByRole("button", { name: "Previous" }).click();
  await b.getByText("Page 2", { exact: true }).waitFor();
  // The activity log: the newest eight, then the older ones, then back.
  await a.bringToFront();
  await a.getByText("#13 saved user11@example.com").waitFor();
  assert.equal((await activity(a)).length, 8);
  assert.equal((await activity(a))[0], "#13 saved user11@example.com");
  await a.getByRole("button", { name: "Older" }).click();
  await a.getByText("#5 saved user3@example.com").waitFor();
  assert.deepEqual(
    (await activity(a)).map((t) => t?.split(" ")[0]),
    ["#5", "#4", "#3", "#2", "#1"],
  );
  assert.equal(await a.getByRole("button", { name: "Older" }).isDisabled(), true);
  await a.getByRole("button", { name: "Newer" }).click();
  await a.getByText("#13 saved user11@example.com").waitFor();
  // A delete in one tab leaves the other's list and count.
  await a.getByRole("button", { name: "Newest" }).click();
  await b.bringToFront();
  const row = b.locator("tbody tr").first();
  const gone = await row.locator("td").first().textContent();
  await row.getByRole("button", { name: "Delete" }).click();
  await a.getByText("11 profiles").waitFor();
  await a.getByText(`deleted ${gone}`).waitFor();
  assert.deepEqual([...a.errors, ...b.errors], []);
  await a.bringToFront();
  await screenshot(a, "example-desktop");
  await a.setViewportSize({ width: 390, height: 844 });
  await screenshot(a, "example-phone");
});
