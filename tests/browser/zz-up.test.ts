import { test } from "node:test";
import "./page-types.js";
import { openPage, useProfile } from "./harness.js";

const env = useProfile();
test("timing", async (t) => {
  const page = await openPage(env.browser, env.server.origin);
  const r = await page.evaluate(async () => {
    const out: Record<string, number> = {};
    for (const [name, indexes] of [
      ["plain", undefined],
      ["indexed", { byCompany: "companyName" }],
      ["plain2", undefined],
      ["indexed2", { byCompany: "companyName" }],
    ] as const) {
      const dir = await window.attrmap.openAttrmap({ name }).customerDirectory(indexes ? { indexes } : {});
      await dir.upsertProfiles(
        Array.from({ length: 10000 }, (_, i) => ({ emailAddress: `u${i}@x.org`, companyName: `C${i % 100}` })),
      );
      const t0 = performance.now();
      for (let i = 0; i < 300; i++)
        await dir.upsertProfile({
          emailAddress: `u${(i * 7919) % 10000}@x.org`,
          companyName: `C${((i * 7919) % 10000) % 100}`,
          fullName: `R${i}`,
        });
      out[name] = (performance.now() - t0) / 300;
    }
    return out;
  });
  t.diagnostic(JSON.stringify(r));
});
