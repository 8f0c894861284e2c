// The demo page driven like a person would: typing, with the results read off the page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { collectErrors, screenshot, useChromium } from "./harness.js";

const env = useChromium();

async function openDemo() {
  const page = await env.browser.newPage();
  const errors = collectErrors(page);
  await page.goto(env.server.origin + "/");
  await page.waitForSelector("html[data-ready=true]");
  return { page, errors };
}

test("the partition panel updates live as an email is typed", async () => {
  const { page, errors } = await openDemo();
  // The initial value is SPEC.md's first golden value.
  assert.equal(await page.textContent("#canonical"), "alice@example.com");
  assert.equal(await page.textContent("#partition-name"), "partition-278");

  const email = page.getByLabel("Email address", { exact: true });
  await email.fill("");
  await email.pressSequentially("Bob@Example.com");
  assert.equal(await page.textContent("#canonical"), "bob@example.com");
  assert.equal(await page.textContent("#hash"), "3055529145");
  assert.equal(await page.textContent("#hash-hex"), "0x" + (3055529145).toString(16));
  assert.equal(await page.textContent("#partition-name"), "partition-145");

  await page.getByLabel("Partitions").fill("16");
  assert.equal(await page.textContent("#partition-name"), `partition-${String(3055529145 % 16).padStart(2, "0")}`);
  await screenshot(page, "demo-partition");
  assert.deepEqual(errors, []);
  await page.close();
});

test("bad input shows the error code and message as text", async () => {
  const { page, errors } = await openDemo();
  await page.getByLabel("Email address", { exact: true }).fill("   ");
  assert.equal(await page.textContent("#partition-error"), "invalid_email: emailAddress is required");
  assert.equal(await page.isVisible("#partition-result"), false);

  const html = "<img src=x onerror=alert(1)>é";
  await page.getByLabel("Email address", { exact: true }).fill(html);
  assert.equal(await page.textContent("#partition-error"), "invalid_email: emailAddress must contain only ASCII characters");
  assert.equal(await page.locator("img").count(), 0);

  // Markup in an accepted key is shown as text, never parsed.
  await page.getByLabel("Email address", { exact: true }).fill("<b>X</b>@example.com");
  assert.equal(await page.textContent("#canonical"), "<b>x</b>@example.com");
  assert.equal(await page.locator("#canonical b").count(), 0);

  await page.getByLabel("Page token", { exact: true }).fill("00000000000000000100");
  assert.equal(await page.textContent("#token-result"), 'invalid_page_token: invalid page token "00000000000000000100"');
  await page.getByLabel("Page token", { exact: true }).fill("18446744073709551701");
  assert.equal(await page.textContent("#token-result"), "Valid: the archived chunk whose first sequence is 18446744073709551701.");
  await screenshot(page, "demo-errors");
  assert.deepEqual(errors, []);
  await page.close();
});
