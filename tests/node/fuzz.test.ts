// The hardening fuzz in Node, against the package installed from its packed tarball, with
// storage over fake-indexeddb (the Node path). The same fuzz runs in Chromium (browser/fuzz).
import assert from "node:assert/strict";
import { test } from "node:test";
import * as core from "attrmap";
import * as dex from "attrmap/dex";
import * as exportImport from "attrmap/export-import";
import * as http from "attrmap/http";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { fuzz } from "../shared/fuzz.js";

test("every export and method, given every type of value, answers or throws an AttrmapError; golden values survive", async () => {
  const attrmap = { ...core, ...exportImport, ...dex, ...http };
  const report = await fuzz(attrmap, { rounds: 10, storage: { indexedDB: new IDBFactory(), IDBKeyRange, name: "fuzz" } });
  assert.deepEqual(report.failures, []);
  // The fuzz must have reached both outcomes, and refused wrong types as such.
  assert.ok(report.calls > 40_000, `only ${report.calls} calls`);
  assert.ok((report.outcomes.ok ?? 0) > 1000, JSON.stringify(report.outcomes));
  assert.ok((report.outcomes.invalid_argument ?? 0) > 10_000, JSON.stringify(report.outcomes));
});
