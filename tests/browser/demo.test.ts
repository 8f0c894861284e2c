// The demo page driven like a person would (its status, archive, sample-data, directory, search
// and partitions panels; demo-data.test.ts has the others): typing and clicking, with the results read off
// the page, at desktop (1280x800) and phone (390x844) sizes, with a screenshot of each panel
// at both. The page talks to its service worker's HTTP API; each test has an origin of its own
// (so storage and a service worker of its own) in the file's one on-disk Chromium profile.
// Expected partitions come from the independent implementation in tests/shared/reference.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { refPartition } from "../shared/reference.js";
import "./page-types.js";
import { DESKTOP, EXPECTED_4XX, importSamples, openDemo, PHONE, saveProfile, shoot, textOf } from "./demo-page.js";
import { openTab, useChromium } from "./harness.js";

const browser = useChromium();

test("status and recent changes speak plainly; the page has a favicon", async (t) => {
  const { page, origin } = await openDemo(browser, t);
  assert.equal(
    await textOf(page, "#status"),
    "Ready. This page's service worker answers the HTTP API from IndexedDB; everything stays in this browser.",
  );
  await page.waitForFunction(() => (document.getElementById("change-list")?.children.length ?? 0) > 0);
  const changes = await page.locator("#change-list li").allTextContents();
  assert.ok(
    changes.every((c) =>
      /: (An HTTP API flow was started\.|Accounts: 1 partition saved\.|Customer directory: |Subscriber archive: )/.test(c),
    ),
    changes.join("\n"),
  );
  assert.ok(!changes.some((c) => /Flows|partition-0\b|run /.test(c)), changes.join("\n"));
  const icon = await page.getAttribute("link[rel=icon]", "href");
  assert.equal(
    await page.evaluate(async (href) => (await fetch(href)).headers.get("content-type"), `${origin}/${icon}`),
    "image/svg+xml",
  );
  assert.deepEqual(page.errors, []);
});

for (const viewport of [DESKTOP, PHONE]) {
  const size = viewport === PHONE ? "phone" : "desktop";

  test(`the rules panels update as an email or a token is typed, with the call shown (${size})`, async (t) => {
    const { page } = await openDemo(browser, t, viewport);
    // The initial value is SPEC.md's first golden value.
    assert.equal(await textOf(page, "#canonical"), "alice@example.com");
    assert.equal(await textOf(page, "#partition-name"), "partition-278");
    const email = page.getByLabel("Email address", { exact: true }).last();
    await email.fill("");
    await email.pressSequentially("Bob@Example.com");
    assert.equal(await textOf(page, "#canonical"), "bob@example.com");
    assert.equal(await textOf(page, "#hash"), "3055529145");
    assert.equal(await textOf(page, "#partition-name"), "partition-145");
    await page.getByLabel("Partitions", { exact: true }).fill("16");
    assert.equal(await textOf(page, "#partition-name"), refPartition("bob@example.com", 16).name);
    assert.equal(
      await textOf(page, "#partition-code"),
      'import { emailPartition } from "attrmap";\nemailPartition("Bob@Example.com", 16);',
    );
    await email.fill("   ");
    assert.equal(await textOf(page, "#partition-error"), "invalid_email: emailAddress is required");
    assert.equal(await page.isVisible("#partition-result"), false);
    await email.fill("<b>X</b>@example.com");
    assert.equal(await textOf(page, "#canonical"), "<b>x</b>@example.com");
    assert.equal(await page.locator("#canonical b").count(), 0);
    await shoot(page, "partition-finder", "partition-finder");
    const token = page.getByLabel("Page token", { exact: true }).last();
    await token.fill("00000000000000000100");
    await page.waitForFunction(() => document.getElementById("token-result")?.className === "error");
    assert.equal(await textOf(page, "#token-result"), 'invalid_page_token: invalid page token "00000000000000000100"');
    // A valid token of a chunk that does not exist says so, instead of calling it a chunk.
    await token.fill("00000000000000009901");
    await page.waitForFunction(() => document.getElementById("token-result")?.textContent?.includes("no chunk"));
    assert.equal(await textOf(page, "#token-result"), "Valid for chunks of 100, but no chunk is archived under it yet.");
    assert.match(await textOf(page, "#token-code"), /archive\.getSubscriberPage\("00000000000000009901"\);/);
    await shoot(page, "token-checker", "token-checker");
    assert.deepEqual(page.errors, []);
  });

  test(`customer directory: save, look up, errors shown as errors, stale errors cleared (${size})`, async (t) => {
    const { page } = await openDemo(browser, t, viewport);
    const form = page.locator("#profile-form");
    await form.getByLabel("Email address").fill("  Carol@Example.ORG ");
    await form.getByLabel("Full name").fill("<img src=x onerror=alert(1)> Carol");
    await form.getByLabel("Company").fill("Example & Co");
    await form.getByLabel("Tier").fill("gold");
    await form.getByLabel("Tier").press("Enter"); // keyboard submit
    await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Saved"));
    const expected = refPartition("carol@example.org", 1000);
    assert.equal(await textOf(page, "#directory-message"), `Saved to ${expected.name}.`);
    assert.equal(await page.getAttribute("#directory-message", "class"), "result ok");
    assert.equal(await textOf(page, "#placement-partition"), expected.name);
    assert.equal(await textOf(page, "#placement-hash"), `${expected.hash} (0x${expected.hash.toString(16).padStart(8, "0")})`);
    // The result is on screen after saving, at this size too.
    const box = (await page.locator("#directory-message").boundingBox())!;
    // (within a pixel: scrolling is by whole pixels, layout is not)
    assert.ok(box.y >= 0 && box.y + box.height <= viewport.height + 1, `the message is at y=${box.y}`);
    const code = await textOf(page, "#directory-code");
    assert.match(
      code,
      /await fetch\("\/patterns\/hash-partitioned-attribute-map\/customer-profile", \{ method: "PUT", body: JSON\.stringify\(/,
    );
    assert.match(code, /await directory\.upsertProfile\(\{"emailAddress":" {2}Carol@Example\.ORG ",/);
    await shoot(page, "directory", "directory-saved");

    await page.getByLabel("Look up email").fill("CAROL@example.org");
    await page.getByRole("button", { name: "Look up" }).click();
    await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Read"));
    assert.equal(await textOf(page, "#shown-name"), "<img src=x onerror=alert(1)> Carol");
    assert.equal(await textOf(page, "#shown-company"), "Example & Co");
    assert.equal(await page.locator("#directory img").count(), 0, "stored markup is never parsed");

    await page.getByLabel("Look up email").fill("nobody@example.org");
    await page.getByRole("button", { name: "Look up" }).click();
    await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("404"));
    assert.equal(await textOf(page, "#directory-message"), '404 Not Found: customer profile "nobody@example.org" not found');
    assert.equal(await page.getAttribute("#directory-message", "class"), "result error");
    assert.equal(await page.getAttribute("#directory-message", "role"), "alert");
    assert.equal(await page.isVisible("#directory-profile"), false);
    assert.match(await textOf(page, "#directory-code"), /\/\/ HTTP 404/);
    await shoot(page, "directory", "directory-error");
    // The browser's own validation stops an empty lookup: the old error does not stay on screen.
    await page.getByLabel("Look up email").fill("");
    await page.getByRole("button", { name: "Look up" }).click();
    assert.equal(await textOf(page, "#directory-message"), "");
    assert.deepEqual(
      page.errors.filter((e) => !EXPECTED_4XX.test(e)),
      [],
    );
  });
}

for (const viewport of [PHONE, DESKTOP]) {
  test(`the page stays put on load; no panel is wider than the screen, search results too (${viewport.width} px)`, async (t) => {
    const { page } = await openDemo(browser, t, viewport);
    // What the page does by itself on load (the status, recent changes, the archive's first
    // page, the fill view) is done within this wait; none of it may move the page.
    await page.waitForFunction(() => (document.getElementById("change-list")?.children.length ?? 0) > 0);
    await page.waitForTimeout(1500);
    assert.equal(await page.evaluate(() => window.scrollY), 0, "the page scrolled by itself on load");
    // A search with results, its long cells included.
    await saveProfile(page, "a.very.long.address.of.someone@subdomain.example-company.test", {
      fullName: "Someone With A Rather Long Full Name",
      company: "Example Company With A Long Name",
    });
    const search = page.locator("#search-form");
    await search.getByLabel("Company").fill("Example Company With A Long Name");
    await search.getByRole("button", { name: "Find" }).click();
    await page.waitForFunction(() => /match/.test(document.getElementById("search-message")?.textContent ?? ""));
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const over = Array.from(document.querySelectorAll("section"))
        .filter((s) => s.getBoundingClientRect().right > width + 0.5 || s.scrollWidth > s.clientWidth + 1)
        .map((s) => `${s.id} (${Math.round(s.getBoundingClientRect().right)}, ${s.scrollWidth} > ${s.clientWidth})`);
      return { page: document.documentElement.scrollWidth - width, over };
    });
    assert.deepEqual(wide, { page: 0, over: [] });
    await shoot(page, "search", "search-long");
    assert.deepEqual(page.errors, []);
  });
}

test("subscriber archive: register 250 with the form, then walk pages by older, newer, newest and a typed token", async (t) => {
  const { page } = await openDemo(browser, t);
  const form = page.locator("#register-form");
  // The first 245 through the HTTP API the form posts to (a form round trip each took 70 s in
  // all), the last five with the form.
  await page.evaluate(async (route) => {
    for (let i = 1; i <= 245; i++) {
      const body = JSON.stringify({ subscriberId: `sub-${i}`, deliveryAddress: `sub${i}@example.com` });
      const answer = await fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body });
      if (answer.status !== 200) throw new Error(`registering sub-${i}: ${answer.status}`);
    }
  }, "/patterns/sequentially-chunked-attribute-map/register");
  for (let i = 246; i <= 250; i++) {
    await form.getByLabel("Subscriber ID").fill(`sub-${i}`);
    await form.getByLabel("Delivery address").fill(`sub${i}@example.com`);
    await form.getByRole("button", { name: "Register" }).click();
    await page.waitForFunction(
      (i) => document.getElementById("register-message")?.textContent === `Registered sub-${i} as sequence ${i}.`,
      i,
    );
  }
  const shown = async () => ({
    token: await textOf(page, "#page-token"),
    kind: await textOf(page, "#page-kind"),
    first: await page.locator("#page-rows tr").first().locator("td").first().textContent(),
    rows: await page.locator("#page-rows tr").count(),
  });
  const at = (token: string) =>
    page.waitForFunction((token) => document.getElementById("page-token")?.textContent === token, token);
  assert.deepEqual(await shown(), { token: "current", kind: "current chunk: 50 of 100", first: "250", rows: 50 });
  assert.match(await textOf(page, "#archive-code"), /await archive\.registerSubscriber\(\{"subscriberId":"sub-250"/);
  const newer = page.locator("[data-go=newer]").first();
  assert.equal(await newer.isDisabled(), true, "nothing is newer than current");
  await page.locator("[data-go=older]").last().click(); // the pager below the table
  await at("00000000000000000101");
  assert.deepEqual(await shown(), { token: "00000000000000000101", kind: "archived chunk of 100", first: "200", rows: 100 });
  await page.locator("[data-go=older]").first().click();
  await at("00000000000000000001");
  assert.equal(await page.locator("[data-go=older]").first().isDisabled(), true, "the oldest page has no older page");
  assert.equal(await textOf(page, "#next-token"), "none: this is the oldest page");
  await newer.click();
  await at("00000000000000000101");
  await newer.click();
  await at("current");
  await page.getByLabel("Page token", { exact: true }).first().fill("00000000000000000101");
  await page.getByRole("button", { name: "Show page" }).click();
  await at("00000000000000000101");
  assert.match(await textOf(page, "#archive-code"), /getSubscriberPage\("00000000000000000101"\)/);
  await page.getByLabel("Page token", { exact: true }).first().fill("00000000000000000102");
  await page.getByRole("button", { name: "Show page" }).click();
  await page.waitForFunction(() => document.getElementById("page-message")?.textContent?.startsWith("400"));
  assert.equal(await page.getAttribute("#page-message", "class"), "result error");
  await shoot(page, "archive", "archive");
  await page.setViewportSize(PHONE);
  // Headers keep their words whole; the table scrolls sideways instead of breaking them.
  const header = (await page.locator("#page-table th").first().boundingBox())!;
  assert.ok(header.height < 40, `the Sequence header wraps (${header.height}px)`);
  await shoot(page, "archive", "archive");
  assert.deepEqual(
    page.errors.filter((e) => !/status of 400/.test(e)),
    [],
  );
});

test("sample data: counts checked, progress adds up, fill view drawn on load, during an import, in other tabs", async (t) => {
  const { page, context, origin } = await openDemo(browser, t);
  await page.waitForFunction(() => document.getElementById("fill-partitions")?.textContent !== "");
  assert.equal(await textOf(page, "#fill-partitions"), "No profiles yet: the 1000 partitions are empty.");
  assert.equal(await page.getByLabel("Subscribers in the current chunk").count(), 1);
  const profiles = page.getByLabel("Profiles", { exact: true });
  const subscribers = page.getByLabel("Subscribers", { exact: true });
  for (const bad of ["-5", "1.5", ""]) {
    await profiles.fill(bad);
    await page.getByRole("button", { name: "Import" }).click();
    assert.equal(await textOf(page, "#sample-message"), `Profiles must be a whole number from 0 to 200,000, not "${bad}".`);
    assert.equal(await page.getAttribute("#sample-message", "class"), "result error");
  }
  const other = await openTab(context, origin, "/");
  await profiles.fill("12000");
  await subscribers.fill("1000");
  await page.getByRole("button", { name: "Import" }).click();
  // During the import, after the first batches, the chart already shows profiles.
  await page.waitForFunction(() => /^\d+ profiles in/.test(document.getElementById("fill-partitions")?.textContent ?? ""));
  await page.waitForFunction(() => document.getElementById("sample-message")?.textContent?.startsWith("Done"), undefined, {
    timeout: 120_000,
  });
  assert.equal(await textOf(page, "#sample-message"), "Done: 12000 profiles and 1000 subscribers imported.");
  const bar = await page.evaluate(() => {
    const p = document.getElementById("sample-progress") as HTMLProgressElement;
    return [p.value, p.max];
  });
  assert.deepEqual(bar, [13000, 13000]);
  await page.waitForFunction(() => document.getElementById("fill-chunks")?.textContent?.startsWith("1000 subscribers"));
  assert.match(
    await textOf(page, "#fill-partitions"),
    /^12000 profiles in \d+ of 1000 partitions: \d+ to \d+ per partition, 12\.0 on average\.$/,
  );
  assert.equal(await textOf(page, "#fill-chunks"), "1000 subscribers: 9 archived chunks and 100 of 100 in the current chunk.");
  assert.deepEqual(await page.evaluate(() => [(document.getElementById("fill-current") as HTMLMeterElement).value]), [100]);
  // The other tab redrew from the change notifications, without a reload or a button.
  await other.waitForFunction(() => document.getElementById("fill-partitions")?.textContent?.startsWith("12000 profiles"));
  // The chart has bars: some pixel in the plot area is the bar colour.
  const drawn = await page.evaluate(() => {
    const canvas = document.getElementById("fill-chart") as HTMLCanvasElement;
    const data = canvas.getContext("2d")!.getImageData(60, 10, canvas.width - 70, canvas.height - 40).data;
    for (let i = 0; i < data.length; i += 4) if (data[i] === 0x2f && data[i + 1] === 0x6f && data[i + 2] === 0xde) return true;
    return false;
  });
  assert.equal(drawn, true);
  await shoot(page, "samples", "samples");
  await page.setViewportSize(PHONE);
  await shoot(page, "samples", "samples");
  // After a reload the view is drawn again at once.
  await page.reload();
  await page.waitForFunction(() => document.getElementById("fill-partitions")?.textContent?.startsWith("12000 profiles"));
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test("two tabs: a subscriber registered in one appears in the other, and its recent changes say so", async (t) => {
  const { page: first, context, origin } = await openDemo(browser, t);
  const second = await openTab(context, origin, "/");
  await second.setViewportSize(PHONE);
  const form = first.locator("#register-form");
  await form.getByLabel("Subscriber ID").fill("from-the-first-tab");
  await form.getByLabel("Delivery address").fill("first@example.com");
  await form.getByRole("button", { name: "Register" }).click();
  await second.waitForFunction(
    () => document.getElementById("page-rows")?.textContent?.includes("from-the-first-tab"),
    undefined,
    { timeout: 10_000 },
  );
  assert.equal(await second.locator("#page-rows tr").first().locator("td").nth(1).textContent(), "from-the-first-tab");
  assert.match(
    (await second.locator("#change-list li").first().textContent()) ?? "",
    /Subscriber archive: the current chunk saved\.$/,
  );
  // On a phone the recent changes are near the top, not thousands of pixels down.
  const box = (await second.locator("#changes").boundingBox())!;
  assert.ok(box.y < PHONE.height, `recent changes start at y=${box.y}`);
  await shoot(second, "changes", "changes");
  assert.deepEqual([...first.errors, ...second.errors], []);
});

test("directory: a looked-up profile can be deleted, with the library call shown", async (t) => {
  const { page } = await openDemo(browser, t);
  const form = page.locator("#profile-form");
  await form.getByLabel("Email address").fill("dana@example.com");
  await form.getByRole("button", { name: "Save profile" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Saved"));
  await page.getByLabel("Look up email").fill(" DANA@example.com");
  await page.getByRole("button", { name: "Delete profile" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Deleted"));
  assert.equal(await textOf(page, "#directory-message"), `Deleted from ${refPartition("dana@example.com", 1000).name}.`);
  assert.match(await textOf(page, "#directory-code"), /await directory\.deleteProfile\(" DANA@example\.com"\);/);
  // The only profile of its partition: the change list says the partition was emptied, not saved.
  const partition = refPartition("dana@example.com", 1000).name;
  await page.waitForFunction((p) => document.getElementById("change-list")?.textContent?.includes(`${p} emptied`), partition);
  assert.match(
    (await page.locator("#change-list li").first().textContent()) ?? "",
    new RegExp(`Customer directory: ${partition} emptied \\(its last profile deleted\\)\\.$`),
  );
  await page.getByRole("button", { name: "Look up" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("404"));
  await page.getByRole("button", { name: "Delete profile" }).click();
  await page.waitForFunction(
    () => document.getElementById("directory-message")?.textContent === "There was no profile to delete.",
  );
  assert.deepEqual(
    page.errors.filter((e) => !EXPECTED_4XX.test(e)),
    [],
  );
});

test("search: profiles of a company from its index, kept by saves and deletes through the HTTP API, shown as text", async (t) => {
  const { page } = await openDemo(browser, t);
  const save = (email: string, company: string) => saveProfile(page, email, { company });
  const find = async (company: string, prefix: boolean) => {
    const search = page.locator("#search-form");
    await search.getByLabel("Company").fill(company);
    await search.getByLabel("Starts with").setChecked(prefix);
    await page.evaluate(() => (document.getElementById("search-message")!.textContent = ""));
    await search.getByRole("button", { name: "Find" }).click();
    await page.waitForFunction(() => /match/.test(document.getElementById("search-message")?.textContent ?? ""));
    return {
      message: await textOf(page, "#search-message"),
      rows: await page
        .locator("#search-rows tr")
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent))),
    };
  };
  const markup = '<img src=x onerror="document.title=1">';
  await save("bo@acme.test", "Acme");
  await save("al@acme.test", "Acme");
  await save("cy@other.test", markup);
  const acme = await find("Acme", false);
  assert.equal(acme.message, "2 matching profile(s).");
  // Equal companies in key order: the canonical emails sorted.
  assert.deepEqual(
    acme.rows.map((r) => r[1]),
    ["al@acme.test", "bo@acme.test"],
  );
  assert.match(await textOf(page, "#search-code"), /directory\.where\("byCompany"\)\.equals\("Acme"\)/);
  assert.deepEqual(
    (await find("<img", true)).rows.map((r) => r[0]),
    [markup],
    "stored text is shown as text",
  );
  assert.equal(await page.locator("#search-rows img").count(), 0);
  // Later saves and a delete go through the service worker: the index follows them.
  await save("di@acme.test", "Acme");
  await page.getByLabel("Look up email").fill("bo@acme.test");
  await page.getByRole("button", { name: "Delete profile" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Deleted"));
  assert.deepEqual(
    (await find("Ac", true)).rows.map((r) => r[1]),
    ["al@acme.test", "di@acme.test"],
  );
  await shoot(page, "search", "search");
  assert.equal((await find("Nobody", false)).message, "No profile matches.");
  assert.deepEqual(page.errors, []);
});

test("search: results a page of 20 at a time by the keyset cursor, forward and back, the count over all", async (t) => {
  const { page } = await openDemo(browser, t);
  await importSamples(page, 45, 0);
  // The samples are 45 profiles of company "Example"; equal companies come in email order.
  const emails = Array.from({ length: 45 }, (_, i) => `sample${i}@example.com`).sort();
  const shown = async (message: string) => {
    await page.waitForFunction((m) => document.getElementById("search-message")?.textContent === m, message);
    return page.locator("#search-rows tr td:nth-child(2)").allTextContents();
  };
  await page.locator("#search-form").getByLabel("Company").fill("Example");
  await page.locator("#search-form").getByRole("button", { name: "Find" }).click();
  assert.deepEqual(await shown("45 matching profile(s); 1 to 20 shown."), emails.slice(0, 20));
  assert.equal(await page.getByRole("button", { name: "Previous page" }).isDisabled(), true);
  await page.getByRole("button", { name: "Next page" }).click();
  assert.deepEqual(await shown("45 matching profile(s); 21 to 40 shown."), emails.slice(20, 40));
  assert.match(await textOf(page, "#search-code"), /\.page\(\{ limit: 20, after: pageBefore\.next \}\)/);
  await page.getByRole("button", { name: "Next page" }).click();
  assert.deepEqual(await shown("45 matching profile(s); 41 to 45 shown."), emails.slice(40));
  assert.equal(await page.getByRole("button", { name: "Next page" }).isDisabled(), true);
  await page.getByRole("button", { name: "Previous page" }).click();
  assert.deepEqual(await shown("45 matching profile(s); 21 to 40 shown."), emails.slice(20, 40));
  // A search of one page has no pager, nor one of none.
  await saveProfile(page, "solo@example.com", { company: "Solo" });
  await page.locator("#search-form").getByLabel("Company").fill("Solo");
  await page.locator("#search-form").getByRole("button", { name: "Find" }).click();
  assert.deepEqual(await shown("1 matching profile(s)."), ["solo@example.com"]);
  assert.equal(await page.locator("#search-pager").isVisible(), false);
  await page.locator("#search-form").getByLabel("Company").fill("Nobody");
  await page.locator("#search-form").getByRole("button", { name: "Find" }).click();
  await shown("No profile matches.");
  assert.equal(await page.locator("#search-pager").isVisible(), false);
  assert.deepEqual(page.errors, []);
});

test("partitions view: resizing the directory moves every profile, with progress, and the chart is redrawn", async (t) => {
  const { page } = await openDemo(browser, t);
  await importSamples(page, 3000, 0);
  assert.equal(await page.getByLabel("Partitions of the directory").inputValue(), "1000");
  await page.getByLabel("Partitions of the directory").fill("250");
  await page.getByRole("button", { name: "Resize" }).click();
  await page.waitForFunction(() => document.getElementById("resize-message")?.textContent?.startsWith("The directory has"));
  assert.equal(await textOf(page, "#resize-message"), "The directory has 250 partitions (layout version 2).");
  assert.deepEqual(
    await page.evaluate(() => {
      const p = document.getElementById("resize-progress") as HTMLProgressElement;
      return p.value === p.max;
    }),
    true,
  );
  await page.waitForFunction(() => document.getElementById("fill-partitions")?.textContent?.includes("of 250 partitions"));
  assert.match(
    await textOf(page, "#fill-partitions"),
    /^3000 profiles in \d+ of 250 partitions: \d+ to \d+ per partition, 12\.0 on average\.$/,
  );
  assert.match(await textOf(page, "#samples-code"), /await directory\.map\.resize\(250, /);
  // A lookup through the service worker finds a profile under the new layout.
  await page.getByLabel("Look up email").fill("sample42@example.com");
  await page.getByRole("button", { name: "Look up" }).click();
  await page.waitForFunction(() => document.getElementById("directory-message")?.textContent?.startsWith("Read"));
  assert.equal(await textOf(page, "#directory-message"), `Read from ${refPartition("sample42@example.com", 250).name}.`);
  await shoot(page, "samples", "resized");
  await page.setViewportSize(PHONE);
  await shoot(page, "samples", "resized");
  assert.deepEqual(page.errors, []);
});

test("archive: a chunk-size change archives current short, pages show their size, older archives are dropped", async (t) => {
  const { page } = await openDemo(browser, t);
  await importSamples(page, 0, 250);
  const at = (token: string) =>
    page.waitForFunction((token) => document.getElementById("page-token")?.textContent === token, token);
  await page.locator("[data-go=newest]").first().click();
  await page.waitForFunction(() => document.getElementById("page-kind")?.textContent === "current chunk: 50 of 100");
  await page.getByLabel("Chunk size for new archives").fill("30");
  await page.getByRole("button", { name: "Change chunk size" }).click();
  await page.waitForFunction(() => document.getElementById("log-message")?.textContent?.startsWith("New archives"));
  assert.equal(await textOf(page, "#page-kind"), "current chunk: 0 of 30");
  assert.equal(await textOf(page, "#chunk-size-shown"), "30");
  await page.locator("[data-go=older]").first().click();
  await at("00000000000000000201");
  assert.equal(await textOf(page, "#page-kind"), "archived chunk of 50");
  await page.locator("[data-go=older]").first().click();
  await at("00000000000000000101");
  assert.equal(await textOf(page, "#page-kind"), "archived chunk of 100");
  await page.getByRole("button", { name: "Drop the archives older than this page" }).click();
  await page.waitForFunction(() => document.getElementById("log-message")?.textContent?.startsWith("Dropped"));
  assert.equal(await textOf(page, "#log-message"), "Dropped 1 older archived chunks.");
  assert.match(await textOf(page, "#archive-code"), /await archive\.log\.dropArchivesBefore\("00000000000000000101"\);/);
  await page.getByLabel("Page token", { exact: true }).first().fill("00000000000000000101");
  await page.getByRole("button", { name: "Show page" }).click();
  await at("00000000000000000101");
  assert.equal(await textOf(page, "#next-token"), "none: this is the oldest page");
  await shoot(page, "archive", "archive-retention");
  assert.deepEqual(page.errors, []);
});
