// What the demo's tests share (demo.test.ts, demo-data.test.ts): the demo opened on an origin of
// its own, its panels' screenshots, and the steps a person takes that several tests repeat.
import type { TestContext } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import { openTab, screenshot, serveWww } from "./harness.js";

/** The desktop viewport the screenshots use. */
export const DESKTOP = { width: 1280, height: 800 };
/** The phone viewport the screenshots use. */
export const PHONE = { width: 390, height: 844 };

// Chromium logs every fetch answered with an error status as a console error; tests that
// ask for a 4xx on purpose allow exactly those lines, and nothing else.
/** The console lines of a 4xx a test asks for. */
export const EXPECTED_4XX = /^console: Failed to load resource: the server responded with a status of 40[04] /;

/** The demo on a new origin (a server of its own) in `browser`: storage no other test has touched. */
export async function openDemo(browser: { context: BrowserContext }, t: TestContext, viewport = DESKTOP) {
  const server = await serveWww();
  t.after(async () => {
    for (const page of browser.context.pages()) await page.close();
    await server.close();
  });
  const page = await openTab(browser.context, server.origin, "/");
  await page.setViewportSize(viewport);
  return { page, context: browser.context, origin: server.origin };
}

/** A screenshot of one panel at the page's current size. */
export async function shoot(page: Page, section: string, name: string): Promise<void> {
  const size = page.viewportSize()!.width < 600 ? "phone" : "desktop";
  await page.bringToFront(); // a tab behind another draws no frames, and the screenshot waits for one
  await page.locator(`#${section}`).scrollIntoViewIfNeeded();
  await screenshot(page, `demo-${name}-${size}`, `#${section}`);
}

/** The text of the element `selector` finds, or "". */
export const textOf = async (page: Page, selector: string) => (await page.textContent(selector)) ?? "";

/** Bytes as the demo shows them, written independently of it. */
export const kib = (bytes: number) => `${Math.round((bytes / 1024) * 10) / 10} KiB`;

/** Imports generated samples through the sample-data panel and waits until it says it is done. */
export async function importSamples(page: Page, profiles: number, subscribers: number): Promise<void> {
  await page.getByLabel("Profiles", { exact: true }).fill(String(profiles));
  await page.getByLabel("Subscribers", { exact: true }).fill(String(subscribers));
  await page.getByRole("button", { name: "Import" }).click();
  await page.waitForFunction(() => document.getElementById("sample-message")?.textContent?.startsWith("Done"), undefined, {
    timeout: 60_000,
  });
}

/**
 * Saves a profile with the directory form (the fields given) and waits for the answer to this
 * save, not an earlier one: its name shown, or, without a name, its email placed.
 */
export async function saveProfile(page: Page, email: string, fields: { fullName?: string; company?: string }): Promise<void> {
  const form = page.locator("#profile-form");
  await form.getByLabel("Email address").fill(email);
  if (fields.fullName !== undefined) await form.getByLabel("Full name").fill(fields.fullName);
  if (fields.company !== undefined) await form.getByLabel("Company").fill(fields.company);
  await form.getByRole("button", { name: "Save profile" }).click();
  await page.waitForFunction(
    ({ email, name }) =>
      document.getElementById("directory-message")?.textContent?.startsWith("Saved") &&
      (name === undefined
        ? document.getElementById("placement-email")?.textContent === email
        : document.getElementById("shown-name")?.textContent === name),
    { email, name: fields.fullName },
  );
}

/** Looks an email up through the HTTP API form; resolves with the message and the name shown. */
export async function lookUp(page: Page, email: string): Promise<[string, string]> {
  await page.evaluate(() => {
    document.getElementById("directory-message")!.textContent = "";
  });
  await page.getByLabel("Look up email").fill(email);
  await page.getByRole("button", { name: "Look up" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent !== "");
  return [await textOf(page, "#directory-message"), await textOf(page, "#shown-name")];
}
