// attrmap/react in a real React 19 app (StrictMode, React's development build, so effects
// mount twice), built by Vite and driven in two tabs of Chromium: the initial value, another
// tab's write re-rendering, deps re-running the query, an error reaching the error boundary,
// and unmount stopping the query with every subscription released.
import assert from "node:assert/strict";
import { test } from "node:test";
import { appFolder, useBuiltApp, viteBuild } from "./apps.js";
import { newTab, until } from "./harness.js";

const MAIN = `import { AttrmapError, openAttrmap } from "attrmap/browser";
import { useLiveQuery } from "attrmap/react";
import { Component, type ReactNode, StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";

declare global {
  interface Window {
    counts: { runs: number; subscribed: number; released: number };
    rendered: string[];
    show(email: string): void;
    unmount(): void;
    save(email: string, fullName: string): Promise<void>;
  }
}
const store = openAttrmap({ name: "react-hook" });
window.counts = { runs: 0, subscribed: 0, released: 0 };
window.rendered = [];
// The store as the hook sees it, counting subscriptions: anything with liveQuery will do.
const counted = {
  liveQuery: <T,>(query: (s: typeof store) => Promise<T>) => ({
    subscribe: (observer: { next?(v: T): void; error?(e: unknown): void }) => {
      window.counts.subscribed++;
      const subscription = store.liveQuery(query).subscribe(observer);
      const release = () => {
        window.counts.released++;
        subscription();
      };
      return Object.assign(release, { unsubscribe: release, closed: false });
    },
  }),
};

class Boundary extends Component<{ children: ReactNode }, { error?: unknown }> {
  override state: { error?: unknown } = {};
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    return <p id="caught">{error instanceof AttrmapError ? error.code : String(error)}</p>;
  }
}

function Name({ email }: { email: string }) {
  const name: string = useLiveQuery(
    counted,
    async (s) => {
      window.counts.runs++;
      return (await (await s.customerDirectory()).getProfile(email))?.fullName ?? "nobody";
    },
    [email],
    "loading",
  );
  if (window.rendered.at(-1) !== name) window.rendered.push(name);
  return <p id="name">{name}</p>;
}

function App() {
  const [email, setEmail] = useState("ada@example.com");
  window.show = setEmail;
  return (
    <Boundary key={email}>
      <Name email={email} />
    </Boundary>
  );
}

const root = createRoot(document.getElementById("root")!);
root.render(
  <StrictMode>
    <App />
  </StrictMode>,
);
window.unmount = () => root.unmount();
window.save = async (emailAddress, fullName) => {
  await (await store.customerDirectory()).upsertProfile({ emailAddress, fullName });
};
document.documentElement.dataset.ready = "true";
`;

/** The app, built against React `major`: 19 is the tests' own, 18 comes through Vite aliases of react18 and react-dom18. */
const newApp = (major: 18 | 19) =>
  appFolder(`react-${major}-hook`, {
    "package.json": JSON.stringify({ name: "react-hook", private: true, type: "module" }),
    "index.html": '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><div id="root"></div>\n'.concat(
      '<script type="module" src="/src/main.tsx"></script>',
    ),
    "src/main.tsx": MAIN,
    "vite.config.js": `import react from "@vitejs/plugin-react";
const alias = ${major === 18 ? '{ react: "react18", "react-dom": "react-dom18" }' : "{}"};
export default { plugins: [react()], resolve: { alias } };
`,
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        lib: ["ES2022", "DOM"],
        jsx: "react-jsx",
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        noEmit: true,
      },
      include: ["src"],
    }),
  });
/** What the app's page exposes to the test (its main module declares the same). */
type HookWindow = Window & {
  counts: { runs: number; subscribed: number; released: number };
  rendered: string[];
  show(email: string): void;
  unmount(): void;
  save(email: string, fullName: string): Promise<void>;
};

// Type-checked (the hook's types, strict, with no cast), then built with React's development
// build: StrictMode mounts each effect twice, as in a user's dev server. The React 18 app's check
// would repeat the 19 one's: tsc resolves the same @types/react for both (the aliases are Vite's).
const dev = (major: 18 | 19) =>
  useBuiltApp(newApp(major), viteBuild(["--mode", "development"], { NODE_ENV: "development" }, major === 19));

for (const [major, built] of [
  [19, dev(19)],
  [18, dev(18)],
] as const) {
  test(`useLiveQuery in React ${major}: initial value, other tabs' writes, deps, errors to the boundary, unmount`, async () => {
    const [a, b] = [await newTab(built.browser.context), await newTab(built.browser.context)];
    for (const tab of [b, a]) await tab.goto(`${built.server.origin}/`);
    const text = (selector: string) => a.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
    const counts = () => a.evaluate(() => ({ ...(window as unknown as HookWindow).counts }));
    const shows = (selector: string, value: string) =>
      until(`${selector} to show ${value}`, async () => (await text(selector)) === value);

    await shows("#name", "nobody");
    assert.deepEqual(await a.evaluate(() => (window as unknown as HookWindow).rendered), ["loading", "nobody"]);
    // StrictMode mounted the effect twice: two subscriptions, the first released.
    const mounted = await counts();
    assert.deepEqual([mounted.subscribed, mounted.released], [2, 1]);

    await b.evaluate(() => (window as unknown as HookWindow).save("ada@example.com", "Ada"));
    await shows("#name", "Ada");
    // One live subscription: the write ran the query once, not once per mount.
    assert.equal((await counts()).runs - mounted.runs, 1);

    await a.evaluate(() => (window as unknown as HookWindow).show("not an email \u00e9"));
    await shows("#caught", "invalid_email");
    await a.evaluate(() => (window as unknown as HookWindow).show("grace@example.com"));
    await shows("#name", "nobody");
    await b.evaluate(() => (window as unknown as HookWindow).save("grace@example.com", "Grace"));
    await shows("#name", "Grace");

    await a.evaluate(() => (window as unknown as HookWindow).unmount());
    const unmounted = await counts();
    assert.equal(unmounted.subscribed, unmounted.released, "every subscription released");
    await b.evaluate(() => (window as unknown as HookWindow).save("grace@example.com", "Grace Hopper"));
    await a.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    assert.equal((await counts()).runs, unmounted.runs, "no query runs after unmount");
    // React logs the error its boundary caught (React 18 also replays it as an uncaught error in
    // its development build); nothing else went wrong.
    const caught = "emailAddress must contain only ASCII characters";
    const boundary = "React will try to recreate this component tree from scratch using the error boundary you provided";
    assert.deepEqual([...a.errors.filter((e) => !e.includes(caught) && !e.includes(boundary)), ...b.errors], []);
  });
}
