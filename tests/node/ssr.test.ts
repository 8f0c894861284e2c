// Server-side rendering in Node, as a framework's server does it: React's own renderToString of
// a component using useLiveQuery, over a store opened where there is no IndexedDB (the README's
// pattern: opened at a module's top level) and over no store at all (a `typeof window` guard).
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Attrmap, openAttrmap } from "attrmap";
import { useLiveQuery } from "attrmap/react";
import { createElement } from "react";
import { renderToString } from "react-dom/server";

let queried = 0;
const query = async (s: Attrmap) => {
  queried++;
  return (await s.customerDirectory()).getProfile("dana@example.com");
};

/** The README's pattern: the profile, or the initial value ("loading") until the first result. */
function Customer({ from }: { from: Attrmap | undefined }) {
  const profile = useLiveQuery(from, query, [], "loading");
  return createElement("p", null, typeof profile === "string" ? profile : (profile?.fullName ?? "none"));
}

test("useLiveQuery renders initial on the server and never calls the store; no store at all renders initial too", () => {
  const store = openAttrmap({ name: "rendered-on-a-server" });
  assert.equal(renderToString(createElement(Customer, { from: store })), "<p>loading</p>");
  assert.equal(renderToString(createElement(Customer, { from: undefined })), "<p>loading</p>");
  assert.equal(queried, 0);
});
