// The demo's main flows in this run's engine (ENGINE), with a screenshot per engine in
// tests/artifacts/: the page starts its service worker, the rules panel answers, a profile is
// saved and read back through the HTTP API, subscribers are registered and paged. demo.test.ts
// drives the whole page like a person in Chromium; this one fills the forms through the DOM,
// which every driver can do. Expected partitions come from tests/shared/reference.ts.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { refPartition } from "../shared/reference.js";
import { ENGINE } from "./engines.js";
import { ARTIFACTS, openPage, useProfile } from "./harness.js";

const env = useProfile();

test(`the demo's main flows in ${ENGINE}: rules, a profile through the HTTP API, a page of subscribers`, async () => {
  const page = await openPage(env.browser, env.server.origin, "/");
  const shown = await page.evaluate(async () => {
    const $ = (id: string) => document.getElementById(id)!;
    const until = async (id: string, test: (text: string) => boolean) => {
      for (let i = 0; i < 500 && !test($(id).textContent ?? ""); i++) await new Promise((r) => setTimeout(r, 20));
      return $(id).textContent ?? "";
    };
    const fill = (values: Record<string, string>) => {
      for (const [id, value] of Object.entries(values)) {
        ($(id) as HTMLInputElement).value = value;
        $(id).dispatchEvent(new Event("input", { bubbles: true }));
      }
    };
    const status = $("status").textContent;
    fill({ email: "Bob@Example.com", "partition-count": "16" });
    const partition = await until("partition-name", (t) => t !== "partition-278");
    fill({ "profile-email": "  Carol@Example.ORG ", "profile-name": "<img src=x onerror=alert(1)> Carol" });
    ($("profile-form") as HTMLFormElement).requestSubmit();
    const saved = await until("directory-message", (t) => t.startsWith("Saved"));
    fill({ "lookup-email": "CAROL@example.org" });
    ($("lookup-form") as HTMLFormElement).requestSubmit();
    await until("directory-message", (t) => t.startsWith("Read"));
    const name = $("shown-name").textContent;
    const images = document.querySelectorAll("#directory img").length;
    for (let i = 1; i <= 3; i++) {
      fill({ "subscriber-id": `sub-${i}`, "delivery-address": `sub${i}@example.com` });
      ($("register-form") as HTMLFormElement).requestSubmit();
      await until("register-message", (t) => t === `Registered sub-${i} as sequence ${i}.`);
    }
    const rows = async () =>
      Array.from(document.querySelectorAll("#page-rows tr")).map((r) => r.querySelector("td")?.textContent);
    for (let i = 0; i < 500 && (await rows()).length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    return { status, partition, saved, name, images, register: $("register-message").textContent, rows: await rows() };
  });
  assert.deepEqual(shown, {
    status: "Ready. This page's service worker answers the HTTP API from IndexedDB; everything stays in this browser.",
    partition: refPartition("bob@example.com", 16).name,
    saved: `Saved to ${refPartition("carol@example.org", 1000).name}.`,
    name: "<img src=x onerror=alert(1)> Carol",
    images: 0,
    register: "Registered sub-3 as sequence 3.",
    rows: ["3", "2", "1"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot(join(ARTIFACTS, `demo-engine-${ENGINE}.png`));
  assert.deepEqual(page.errors, []);
});
