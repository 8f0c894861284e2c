// The demo page driven like a person would (its backup, second-device, transfer, live-query and
// storage panels; demo.test.ts has the others): typing and clicking, with the results read off
// the page, at desktop (1280x800) and phone (390x844) sizes, with a screenshot of each panel
// at both. The page talks to its service worker's HTTP API; each test has an origin of its own
// (so storage and a service worker of its own) in the file's one on-disk Chromium profile.
// Expected partitions come from the independent implementation in tests/shared/reference.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { refPartition } from "../shared/reference.js";
import "./page-types.js";
import { DESKTOP, EXPECTED_4XX, kib, lookUp, openDemo, PHONE, saveProfile, shoot, textOf } from "./demo-page.js";
import { openTab, screenshot, until, useChromium } from "./harness.js";

const browser = useChromium();

test("backup: the export downloads every map; another site refuses it without replace, restores it with", async (t) => {
  const { page } = await openDemo(browser, t);
  await saveProfile(page, "Erin@Example.com", { fullName: "Erin" });
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export all maps" }).click();
  const file = await download;
  assert.equal(file.suggestedFilename(), "attrmap-export.ndjson");
  const exported = readFileSync((await file.path())!, "utf8");
  const lines = exported.trimEnd().split("\n");
  assert.deepEqual(JSON.parse(lines[0]!), { format: "attrmap-export", version: 1 });
  const erin = refPartition("erin@example.com", 1000).name;
  const line = lines.find((l) => l.includes(`"instance":"${erin}"`));
  assert.ok(line, `no line for ${erin}`);
  assert.equal((JSON.parse(line) as { value: Record<string, { fullName: string }> }).value["erin@example.com"]?.fullName, "Erin");
  await page.waitForFunction(() => document.getElementById("backup-message")?.textContent?.startsWith("Exported"));
  assert.equal(
    await textOf(page, "#backup-message"),
    `Exported ${lines.length} lines (${kib(Buffer.byteLength(exported))}) to attrmap-export.ndjson.`,
  );
  await shoot(page, "backup", "exported");

  // Another origin has its own (empty) directory and archive: the import must be asked to replace them.
  const { page: other } = await openDemo(browser, t, PHONE);
  assert.equal((await lookUp(other, "erin@example.com"))[0], '404 Not Found: customer profile "erin@example.com" not found');
  await other.setInputFiles("#import-file", {
    name: "attrmap-export.ndjson",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(exported),
  });
  await other.getByRole("button", { name: "Restore from file" }).click();
  await other.waitForFunction(() => document.getElementById("backup-message")?.className.includes("error"));
  assert.match(
    await textOf(other, "#backup-message"),
    /^Import refused, nothing was changed: already_exists: line \d+: map "[^"]+" exists already; pass \{ replace: true \} to/,
  );
  await other.getByLabel("Replace maps that exist").check();
  await other.getByRole("button", { name: "Restore from file" }).click();
  await other.waitForFunction(() => document.getElementById("backup-message")?.textContent?.startsWith("Imported"));
  const layouts = lines.filter((l) => l.includes('"layout"')).length;
  assert.match(
    await textOf(other, "#backup-message"),
    new RegExp(`^Imported ${layouts} maps, \\d+ instances, \\d+ entries from attrmap-export\\.ndjson\\.$`),
  );
  assert.equal(await other.evaluate(() => (document.getElementById("backup-progress") as HTMLProgressElement).position), 1);
  assert.deepEqual(await lookUp(other, "ERIN@example.com"), [`Read from ${erin}.`, "Erin"]);
  await shoot(other, "backup", "restored");
  assert.deepEqual(page.errors, []);
  assert.deepEqual(
    other.errors.filter((e) => !EXPECTED_4XX.test(e)),
    [],
  );
});

test("backup: a file with one bad line is refused at that line, and nothing changes", async (t) => {
  const { page } = await openDemo(browser, t);
  await saveProfile(page, "frank@example.com", { fullName: "Frank" });
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export all maps" }).click();
  const lines = readFileSync((await (await download).path())!, "utf8")
    .trimEnd()
    .split("\n");
  // Frank's key in upper case: not canonical under the email rule (docs/export-format.md).
  const at = lines.findIndex((l) => l.includes('"frank@example.com":'));
  lines[at] = lines[at]!.replace('"frank@example.com":', '"FRANK@example.com":');
  await saveProfile(page, "frank@example.com", { fullName: "Frank, after the export" });
  await page.setInputFiles("#import-file", {
    name: "bad.ndjson",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(`${lines.join("\n")}\n`),
  });
  await page.getByLabel("Replace maps that exist").check();
  await page.getByRole("button", { name: "Restore from file" }).click();
  await page.waitForFunction(() => document.getElementById("backup-message")?.className.includes("error"));
  assert.equal(
    await textOf(page, "#backup-message"),
    "Import refused, nothing was changed: " +
      `invalid_argument: line ${at + 1}: key "FRANK@example.com" is not a canonical email (key-not-canonical)`,
  );
  assert.deepEqual(await lookUp(page, "frank@example.com"), [
    `Read from ${refPartition("frank@example.com", 1000).name}.`,
    "Frank, after the export",
  ]);
  await shoot(page, "backup", "refused");
  assert.deepEqual(page.errors, []);
});

/** The backup panel's answer: its message, one line per flow, and the files it lists as saved. */
async function backupAnswer(page: Page, starts: string): Promise<{ flows: string[]; files: string[] }> {
  await page.waitForFunction((s) => document.getElementById("backup-message")?.textContent === s, starts);
  return {
    flows: await page.locator("#backup-flows li").allTextContents(),
    files: (await page.locator("#backup-saved").isVisible()) ? await page.locator("#backup-files li").allTextContents() : [],
  };
}

test("backup: changes since the last move carry only the partition saved since; a flow never moved says so", async (t) => {
  const { page } = await openDemo(browser, t);
  await saveProfile(page, "gina@example.com", { fullName: "Gina" });
  const downloads: Array<Promise<[string, string]>> = [];
  page.on("download", (d) => downloads.push(d.path().then((p) => [d.suggestedFilename(), readFileSync(p!, "utf8")])));
  // Before any move there is nothing to compare with: no file, and each flow says so.
  await page.getByRole("button", { name: "Changes since the last move" }).click();
  assert.deepEqual(await backupAnswer(page, "Changes since the last move for the python sample:"), {
    flows: ["customer-directory", "chunked-subscriber-archive"].map(
      (flow) => `${flow}: not moved yet, so there is nothing to compare with: send its SetAttributes requests first.`,
    ),
    files: [],
  });
  assert.equal(downloads.length, 0);
  await page.getByRole("button", { name: "SetAttributes requests" }).click();
  const full = await backupAnswer(page, "Wrote SetAttributes requests for the python sample:");
  const moved = Number(/checkpoint (\d+)/.exec(full.flows[0]!)![1]);
  assert.match(full.flows[0]!, /^customer-directory: 1 attribute in 1 request; the engine's copy is at checkpoint \d+\.$/);
  await until("the full export's downloads", async () => downloads.length >= 2, 10_000);
  const fullFiles = new Map(await Promise.all(downloads));
  assert.deepEqual(
    [...full.files].sort(),
    [...fullFiles].map(([name, body]) => `${name} (${kib(Buffer.byteLength(body))})`).sort(),
    "each file saved, with its size",
  );
  downloads.length = 0;
  await saveProfile(page, "hank@example.com", { fullName: "Hank" });
  await page.getByRole("button", { name: "Changes since the last move" }).click();
  const changes = await backupAnswer(page, "Changes since the last move for the python sample:");
  assert.deepEqual(changes.flows, [
    `customer-directory: 1 instance changed since checkpoint ${moved}, in 1 request; now at ${moved + 1}.`,
    `chunked-subscriber-archive: nothing changed since checkpoint ${moved}; now at ${moved + 1}.`,
  ]);
  await until("the increment's download", async () => downloads.length >= 1, 10_000);
  const files = new Map(await Promise.all(downloads));
  const name = `set-attributes-customer-directory-since-${moved}-1.json`;
  assert.deepEqual(changes.files, [`${name} (${kib(Buffer.byteLength(files.get(name)!))})`]);
  const request = JSON.parse(files.get(name)!) as { attributes: Array<{ key: string }> };
  assert.deepEqual(
    request.attributes.map((a) => a.key),
    [`customer_profiles_by_email_partition/${refPartition("hank@example.com", 1000).name}`],
  );
  assert.match(await textOf(page, "#backup-code"), /exportDexRequests\(store, \{ \.\.\.options, since: savedCheckpoint\(\) \}\)/);
  await shoot(page, "backup", "changes");
  assert.deepEqual(page.errors, []);
});

test("backup: SetAttributes requests for the Python sample, one file per flow, in the sample's names", async (t) => {
  const { page } = await openDemo(browser, t);
  await saveProfile(page, "gina@example.com", { fullName: "Gina" });
  const downloads: Array<Promise<[string, string]>> = [];
  page.on("download", (d) => downloads.push(d.path().then((p) => [d.suggestedFilename(), readFileSync(p!, "utf8")])));
  await page.getByLabel("Reference SDK sample").selectOption("python");
  await page.getByRole("button", { name: "SetAttributes requests" }).click();
  await backupAnswer(page, "Wrote SetAttributes requests for the python sample:");
  // The page clicks one link per file before it says so; the browser reports each download later.
  await until("the second download", async () => downloads.length >= 2, 10_000);
  const files = new Map(await Promise.all(downloads));
  assert.deepEqual([...files.keys()].sort(), [
    "set-attributes-chunked-subscriber-archive-1.json",
    "set-attributes-customer-directory-1.json",
  ]);
  const request = JSON.parse(files.get("set-attributes-customer-directory-1.json")!) as {
    flowId: string;
    attributes: Array<{ key: string; value: { objValue: { encoding: string; payload: string } } }>;
  };
  assert.equal(request.flowId, "customer-directory");
  const gina = request.attributes.find(
    (a) => a.key === `customer_profiles_by_email_partition/${refPartition("gina@example.com", 1000).name}`,
  )!;
  assert.equal(gina.value.objValue.encoding, "json");
  const value = JSON.parse(Buffer.from(gina.value.objValue.payload, "base64").toString("utf8")) as {
    profiles_by_canonical_email: Record<string, { email_address: string; full_name: string }>;
  };
  assert.deepEqual(value.profiles_by_canonical_email["gina@example.com"], {
    email_address: "gina@example.com",
    full_name: "Gina",
    company_name: "",
    customer_tier: "",
  });
  assert.match(await textOf(page, "#backup-code"), /const options = \{ flowId: "customer-directory", sdk: "python"/);
  assert.deepEqual(page.errors, []);
});

test("second device: restored from the engine; a profile both devices changed is a conflict, resolved as chosen", async (t) => {
  const { page } = await openDemo(browser, t);
  await saveProfile(page, "Dana@Example.com", { fullName: "Dana" });
  await saveProfile(page, "eve@example.com", { fullName: "Eve" });
  const done = () =>
    page.waitForFunction(
      () =>
        !(document.getElementById("second-restore") as HTMLButtonElement).disabled &&
        document.getElementById("second-message")?.textContent !== "",
    );
  const clearMessage = () => page.evaluate(() => void (document.getElementById("second-message")!.textContent = ""));
  await page.getByRole("button", { name: "Restore a second device" }).click();
  await done();
  assert.equal(await textOf(page, "#second-message"), "The second device holds 2 profiles, as the engine does.");
  // The default keeps the engine's value: the one this device sent first.
  await clearMessage();
  await page.getByRole("button", { name: "Change a profile on both, then sync" }).click();
  await done();
  const steps = async () => (await page.locator("#second-steps li").allTextContents()).join("\n");
  assert.match(
    await textOf(page, "#second-message"),
    /^(dana|eve)@example\.com is "(Dana|Eve) \(this device\)" on both devices\.$/,
  );
  assert.match(
    await steps(),
    new RegExp(
      'Second device: conflict on (dana|eve)@example\\.com: this side had "\\w+ \\(second device\\)", ' +
        'the engine "\\w+ \\(this device\\)"; kept "\\w+ \\(this device\\)"\\.',
    ),
  );
  // Keeping the second device's value: it reaches the engine and this device.
  await page.getByLabel("On a conflict, keep").selectOption("local");
  await clearMessage();
  await page.getByRole("button", { name: "Change a profile on both, then sync" }).click();
  await done();
  assert.match(await textOf(page, "#second-message"), /^(dana|eve)@example\.com is "[^"]* \(second device\)" on both devices\.$/);
  assert.match(await textOf(page, "#second-code"), /onConflict: \(\{ local \}\) => local/);
  await shoot(page, "second-device", "second-device");
  assert.deepEqual(page.errors, []);
});

test("transfer: two balances and a ledger record land together; a failed one, nothing; another tab sees it", async (t) => {
  const { page, context, origin } = await openDemo(browser, t);
  const balances = async (p: Page) => (await p.locator("#transfer-rows tr").allTextContents()).map((r) => r.trim());
  await until("the opening balances", async () => (await balances(page)).length === 4);
  assert.deepEqual(await balances(page), ["alice100", "bob100", "carol100", "total300"]);
  const form = page.locator("#transfer-form");
  await form.getByLabel("From").selectOption("alice");
  await form.getByLabel("To").selectOption("carol");
  await form.getByLabel("Amount").fill("30");
  await form.getByRole("button", { name: "Transfer" }).click();
  await page.waitForFunction(() =>
    /^Moved 30 from alice to carol: ledger record 1\.$/.test(document.getElementById("transfer-message")?.textContent ?? ""),
  );
  await until("the new balances", async () => (await balances(page))[0] === "alice70");
  assert.deepEqual(await balances(page), ["alice70", "bob100", "carol130", "total300"]);
  assert.equal(await textOf(page, "#transfer-ledger"), "Ledger, newest first: 1. alice to carol, 30.");
  assert.match(
    await textOf(page, "#transfer-code"),
    /await store\.transaction\(\[accounts\.at\("alice"\), accounts\.at\("carol"\), ledger\]/,
  );
  await page.waitForFunction(() =>
    document.getElementById("change-list")?.textContent?.includes("Transfer: two balances and a ledger record saved together."),
  );
  // Failing after its writes: nothing of it is stored, in this tab or another.
  await form.getByLabel("Fail after writing").check();
  await form.getByRole("button", { name: "Transfer" }).click();
  await page.waitForFunction(() => /failed after writing/.test(document.getElementById("transfer-message")?.textContent ?? ""));
  assert.equal(await page.getAttribute("#transfer-message", "role"), "alert");
  await form.getByLabel("Fail after writing").uncheck();
  await form.getByLabel("Amount").fill("500");
  await form.getByRole("button", { name: "Transfer" }).click();
  await page.waitForFunction(() => /alice has 70, not 500/.test(document.getElementById("transfer-message")?.textContent ?? ""));
  const other = await openTab(context, origin, "/");
  await until("the other tab's balances", async () => (await balances(other)).length === 4);
  assert.deepEqual(await balances(other), ["alice70", "bob100", "carol130", "total300"]);
  assert.equal(await textOf(other, "#transfer-ledger"), "Ledger, newest first: 1. alice to carol, 30.");
  await shoot(page, "transfer", "transfer");
  await page.setViewportSize(PHONE);
  await shoot(page, "transfer", "transfer");
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test("live query: a watched profile changes on the page when another tab saves it, and stops when asked", async (t) => {
  const { page, context, origin } = await openDemo(browser, t);
  await page.locator("#live-form").getByLabel("Email address").fill("hana@example.com");
  await page.getByRole("button", { name: "Watch" }).click();
  await page.waitForFunction(() =>
    document.getElementById("live-result")?.textContent?.includes("no profile of hana@example.com yet"),
  );
  const other = await openTab(context, origin, "/");
  await saveProfile(other, "hana@example.com", { fullName: "Hana" });
  await page.waitForFunction(
    () => / Hana, \(no company\), tier \(none\)$/.test(document.getElementById("live-result")?.textContent ?? ""),
    undefined,
    { timeout: 10_000 },
  );
  assert.equal(await textOf(page, "#live-runs"), "The query has run 2 times.");
  await saveProfile(other, "someone-else@example.com", { fullName: "Not watched" });
  await saveProfile(other, "hana@example.com", { fullName: "Hana again" });
  await page.waitForFunction(() => (document.getElementById("live-result")?.textContent ?? "").includes("Hana again"));
  // The unrelated save (partition-774; the watched one is partition-502) did not run the query.
  assert.equal(await textOf(page, "#live-runs"), "The query has run 3 times.");
  assert.match(
    await textOf(page, "#live-code"),
    /\.liveQuery\(async \(s\) => \(await s\.customerDirectory\(\)\)\.getProfile\("hana@example\.com"\)\)/,
  );
  await shoot(page, "live", "live");
  await page.setViewportSize(PHONE);
  await shoot(page, "live", "live");
  await page.getByRole("button", { name: "Stop" }).click();
  await saveProfile(other, "hana@example.com", { fullName: "Hana, unseen" });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  assert.equal(await textOf(page, "#live-result"), "Stopped: the query no longer runs.");
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test("storage: persisted, usage, quota and identity; site data cleared shows a banner, and starting over works", async (t) => {
  const { page, context, origin } = await openDemo(browser, t);
  await until("the storage panel", async () => /^[0-9a-f]{32}, created /.test(await textOf(page, "#storage-identity")));
  const identity = (await textOf(page, "#storage-identity")).slice(0, 32);
  // What the page says is what the browser says.
  const browserSays = await page.evaluate(async () => ({
    persisted: await navigator.storage.persisted(),
    quota: (await navigator.storage.estimate()).quota!,
  }));
  assert.equal(
    await textOf(page, "#storage-persisted"),
    browserSays.persisted ? "yes: kept under storage pressure" : "no: the browser may evict it",
  );
  // Chromium's quota follows the free disk space, so two estimates differ a little.
  const shownQuota = Number((await textOf(page, "#storage-quota")).replace(/ MiB$/, "")) * 1024 * 1024;
  assert.ok(Math.abs(shownQuota - browserSays.quota) < browserSays.quota * 0.01, `${shownQuota} vs ${browserSays.quota}`);
  assert.match(await textOf(page, "#storage-usage"), /^\d+\.\d MiB$/);
  await page.getByRole("button", { name: "Ask to keep this data" }).click();
  await until("the answer to persist()", async () => (await textOf(page, "#storage-result")) !== "");
  assert.match(await textOf(page, "#storage-code"), /await store\.persist\(\); \/\/ (true|false)/);
  await shoot(page, "storage", "storage");
  await page.setViewportSize(PHONE);
  await shoot(page, "storage", "storage");
  await page.setViewportSize(DESKTOP);
  assert.equal(await page.locator("#loss-banner").isVisible(), false);

  // The site's data cleared under the open page: the banner says so, and the HTTP API answers 410.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "indexeddb" });
  await page.locator("#loss-banner").waitFor({ state: "visible", timeout: 10_000 });
  assert.match(
    await textOf(page, "#loss-message"),
    new RegExp(`^database "attrmap" \\(identity ${identity}, created .*\\) is gone`),
  );
  assert.match(await textOf(page, "#storage-identity"), /^data_lost: /);
  const status = await page.evaluate(async () => {
    const r = await fetch("/patterns/sequentially-chunked-attribute-map/subscribers?pageToken=current");
    return [r.status, /^database "attrmap" \(identity ([0-9a-f]{32})/.exec(((await r.json()) as { error: string }).error)?.[1]];
  });
  assert.deepEqual(status, [410, identity], "the service worker's store lost the same database");
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await page.bringToFront();
    await screenshot(page, `demo-loss-banner-${viewport === PHONE ? "phone" : "desktop"}`, "#loss-banner");
  }

  await page.getByRole("button", { name: "Start over" }).click();
  await page.locator("#loss-banner").waitFor({ state: "hidden" });
  await until("a new identity", async () => /^[0-9a-f]{32}, created /.test(await textOf(page, "#storage-identity")));
  assert.notEqual((await textOf(page, "#storage-identity")).slice(0, 32), identity);
  // The service worker went on too: the archive starts again, at sequence 1.
  const registered = await page.evaluate(async () => {
    await fetch("/patterns/sequentially-chunked-attribute-map/start", { method: "POST" });
    const r = await fetch("/patterns/sequentially-chunked-attribute-map/register", {
      method: "POST",
      body: JSON.stringify({ subscriberId: "again", deliveryAddress: "a@example.com" }),
    });
    return [r.status, ((await r.json()) as { sequence: number }).sequence];
  });
  assert.deepEqual(registered, [200, 1]);
  assert.deepEqual(
    page.errors.filter((e) => !/status of 410/.test(e)),
    [],
  );
});
