// The demo page driven like a person would: typing and clicking, with the results read off
// the page. The page talks to its service worker's HTTP API; each test has its own profile.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { emailPartition } from "attrmap";
import "./page-types.js";
import { openTab, persistentContext, screenshot, serveWww } from "./harness.js";

// Chromium logs every fetch answered with an error status as a console error; tests that
// ask for a 4xx on purpose allow exactly those lines, and nothing else.
const EXPECTED_4XX = /^console: Failed to load resource: the server responded with a status of 40[04] /;

async function openDemo(t: TestContext) {
  const server = await serveWww();
  const browser = await persistentContext();
  t.after(async () => {
    await browser.dispose();
    await server.close();
  });
  const page = await openTab(browser.context, server.origin, "/");
  return { page, context: browser.context, origin: server.origin };
}

test("the rules panels update live as an email or a token is typed", async (t) => {
  const { page } = await openDemo(t);
  // The initial value is SPEC.md's first golden value.
  assert.equal(await page.textContent("#canonical"), "alice@example.com");
  assert.equal(await page.textContent("#partition-name"), "partition-278");
  const email = page.getByLabel("Email address", { exact: true }).last();
  await email.fill("");
  await email.pressSequentially("Bob@Example.com");
  assert.equal(await page.textContent("#canonical"), "bob@example.com");
  assert.equal(await page.textContent("#hash"), "3055529145");
  assert.equal(await page.textContent("#hash-hex"), "0x" + (3055529145).toString(16));
  assert.equal(await page.textContent("#partition-name"), "partition-145");
  await page.getByLabel("Partitions", { exact: true }).fill("16");
  assert.equal(await page.textContent("#partition-name"), `partition-${String(3055529145 % 16).padStart(2, "0")}`);
  await email.fill("   ");
  assert.equal(await page.textContent("#partition-error"), "invalid_email: emailAddress is required");
  assert.equal(await page.isVisible("#partition-result"), false);
  await email.fill("<b>X</b>@example.com");
  assert.equal(await page.textContent("#canonical"), "<b>x</b>@example.com");
  assert.equal(await page.locator("#canonical b").count(), 0);
  await page.getByLabel("Page token", { exact: true }).fill("00000000000000000100");
  assert.equal(await page.textContent("#token-result"), 'invalid_page_token: invalid page token "00000000000000000100"');
  await page.getByLabel("Page token", { exact: true }).fill("18446744073709551701");
  assert.equal(await page.textContent("#token-result"), "Valid: the archived chunk whose first sequence is 18446744073709551701.");
  await screenshot(page, "panel-rules");
  assert.deepEqual(page.errors, []);
});

test("customer directory: save a profile, look it up, see where it lives; markup stays text", async (t) => {
  const { page } = await openDemo(t);
  assert.match((await page.textContent("#status")) ?? "", /^Service worker ready\. Flows started: customer-directory/);
  const form = page.locator("#profile-form");
  await form.getByLabel("Email address").fill("  Carol@Example.ORG ");
  await form.getByLabel("Full name").fill("<img src=x onerror=alert(1)> Carol");
  await form.getByLabel("Company").fill("Example & Co");
  await form.getByLabel("Tier").fill("gold");
  await form.getByLabel("Tier").press("Enter"); // keyboard submit
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Saved"));
  const { partitionName, hash } = emailPartition("carol@example.org");
  assert.equal(await page.textContent("#directory-message"), `Saved to ${partitionName}.`);
  assert.equal(await page.textContent("#placement-email"), "carol@example.org");
  assert.equal(await page.textContent("#placement-partition"), partitionName);
  assert.equal(await page.textContent("#placement-hash"), `${hash} (0x${hash.toString(16).padStart(8, "0")})`);

  await page.getByLabel("Look up email").fill("CAROL@example.org");
  await page.getByRole("button", { name: "Look up" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Read"));
  assert.equal(await page.textContent("#shown-email"), "carol@example.org");
  assert.equal(await page.textContent("#shown-name"), "<img src=x onerror=alert(1)> Carol");
  assert.equal(await page.textContent("#shown-company"), "Example & Co");
  assert.equal(await page.locator("#directory img").count(), 0, "stored markup is never parsed");
  await screenshot(page, "panel-directory");

  await page.getByLabel("Look up email").fill("nobody@example.org");
  await page.getByRole("button", { name: "Look up" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("404"));
  assert.equal(await page.textContent("#directory-message"), '404: customer profile "nobody@example.org" not found');
  assert.equal(await page.isVisible("#directory-profile"), false);
  assert.deepEqual(page.errors.filter((e) => !EXPECTED_4XX.test(e)), []);
});

test("subscriber archive: register 250 subscribers with the form and walk every page to the oldest", async (t) => {
  const { page } = await openDemo(t);
  const form = page.locator("#register-form");
  for (let i = 1; i <= 250; i++) {
    await form.getByLabel("Subscriber ID").fill(`sub-${i}`);
    await form.getByLabel("Delivery address").fill(`sub${i}@example.com`);
    await form.getByRole("button", { name: "Register" }).click();
    await page.waitForFunction((i) => document.getElementById("register-message")?.textContent === `Registered sub-${i} as sequence ${i}.`, i);
  }
  const shown = async () => ({
    token: await page.textContent("#page-token"),
    kind: await page.textContent("#page-kind"),
    first: await page.locator("#page-rows tr").first().locator("td").first().textContent(),
    rows: await page.locator("#page-rows tr").count(),
  });
  assert.deepEqual(await shown(), { token: "current", kind: "current", first: "250", rows: 50 });
  await screenshot(page, "panel-archive");
  const older = page.getByRole("button", { name: "Older page" });
  await older.click();
  await page.waitForFunction(() => document.getElementById("page-token")?.textContent === "00000000000000000101");
  assert.deepEqual(await shown(), { token: "00000000000000000101", kind: "archived", first: "200", rows: 100 });
  await older.click();
  await page.waitForFunction(() => document.getElementById("page-token")?.textContent === "00000000000000000001");
  assert.deepEqual(await shown(), { token: "00000000000000000001", kind: "archived", first: "100", rows: 100 });
  assert.equal(await older.isDisabled(), true, "the oldest page has no older page");
  assert.equal(await page.textContent("#next-token"), "none: this is the oldest page");
  await page.getByRole("button", { name: "Newest page" }).click();
  await page.waitForFunction(() => document.getElementById("page-token")?.textContent === "current");
  assert.deepEqual(page.errors, []);
});

test("bulk import of 10,000 profiles and 1,000 subscribers runs to completion with progress", async (t) => {
  const { page } = await openDemo(t);
  await page.getByRole("button", { name: "Import" }).click();
  await page.waitForFunction(() => document.getElementById("bulk-message")?.textContent?.startsWith("Done"), undefined, { timeout: 120_000 });
  assert.equal(await page.textContent("#bulk-message"), "Done: 10000 profiles and 1000 subscribers imported.");
  const progress = await page.evaluate(() => {
    const p = document.getElementById("bulk-progress") as HTMLProgressElement;
    return [p.value, p.max];
  });
  assert.deepEqual(progress, [11000, 11000]);
  await page.waitForFunction(() => document.getElementById("fill-chunks")?.textContent !== "");
  assert.match((await page.textContent("#fill-partitions")) ?? "", /^10000 profiles in \d+ of 1000 partitions: \d+ to \d+ per partition, 10\.0 on average\.$/);
  assert.equal(await page.textContent("#fill-chunks"), "1000 subscribers: 9 archived chunks of 100, and 100 of 100 in the current chunk.");
  await screenshot(page, "panel-bulk");
  assert.deepEqual(page.errors, []);
});

test("two tabs: a subscriber registered in one appears in the other without a reload", async (t) => {
  const { page: first, context, origin } = await openDemo(t);
  const second = await openTab(context, origin, "/");
  const form = first.locator("#register-form");
  await form.getByLabel("Subscriber ID").fill("from-the-first-tab");
  await form.getByLabel("Delivery address").fill("first@example.com");
  await form.getByRole("button", { name: "Register" }).click();
  await second.waitForFunction(() => document.getElementById("page-rows")?.textContent?.includes("from-the-first-tab"), undefined, { timeout: 10_000 });
  assert.equal(await second.locator("#page-rows tr").first().locator("td").nth(1).textContent(), "from-the-first-tab");
  assert.match((await second.locator("#change-list li").first().textContent()) ?? "", /SubscriberChunks \(current\)/);
  await screenshot(second, "panel-changes-second-tab");
  assert.deepEqual([...first.errors, ...second.errors], []);
});
