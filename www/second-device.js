// A second device: another database of this site plays a second browser, and a model of the
// engine's attribute store stands where the engine would be (SetAttributes applied in order, the
// flow's locking RPC applying entry changes, GetAttributes answering every key). The panel
// restores the second device from the engine, then changes one profile on both devices and syncs
// both, in the order docs/sync.md gives (pull, merge, send entry changes, acknowledge), so the
// second device's pull meets a conflict and resolves it as chosen.
import { CUSTOMER_PROFILES_MAP, openAttrmap } from "./attrmap/dist/bundle/browser.js";
import { DEX_SAMPLE_NAMES, exportDexEntryChanges, exportDexRequests, importDexAttributes } from "./attrmap/dist/bundle/dex.js";
import { js, libraryCall } from "./code.js";
import { $, describeError, result, text } from "./dom.js";

const SDK = "typescript";
const MAPS = [CUSTOMER_PROFILES_MAP];
const NAMES = DEX_SAMPLE_NAMES[SDK][CUSTOMER_PROFILES_MAP];
/** The second device's database. */
const SECOND_DEVICE = "attrmap-second-device";

/** The engine's attributes of the directory's flow: key to protobuf JSON value. */
const engine = new Map();

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const toBase64 = (text) => btoa(String.fromCharCode(...utf8.encode(text)));
const fromBase64 = (payload) => fromUtf8.decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0)));

/** SetAttributes, as the engine applies it: the last write of a key wins, a null value deletes it. */
function setAttributes(request) {
  for (const { key, value } of JSON.parse(request.json).attributes)
    if ("nullValue" in value) engine.delete(key);
    else engine.set(key, value);
}

/** The flow's locking RPC, one partition at a time: read it, change the named entries, write it. */
function applyEntryChanges(changes) {
  for (const { attributeMap, instance, key, value } of changes) {
    const attribute = `${attributeMap}/${instance}`;
    const held = engine.get(attribute);
    const partition = held ? JSON.parse(fromBase64(held.objValue.payload))[NAMES.valueField] : {};
    if (value === null) delete partition[key];
    else partition[key] = value;
    if (Object.keys(partition).length === 0) engine.delete(attribute);
    else
      engine.set(attribute, {
        objValue: { encoding: "json", payload: toBase64(JSON.stringify({ [NAMES.valueField]: partition })) },
      });
  }
}

/** GetAttributes with allKeys, as the backend passes it on. */
const getAttributes = () => ({ attributes: [...engine.keys()].sort().map((key) => ({ key, value: engine.get(key) })) });

let store;
let second;

const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function step(line) {
  const item = document.createElement("li");
  item.textContent = line; // stored values reach the page only as text
  $("second-steps").append(item);
}

/** One sync of `device` (pull, merge, send entry changes, acknowledge); `since` is its last checkpoint. */
async function sync(device, name, since, onConflict) {
  const pulled = await importDexAttributes(device, getAttributes(), { sdk: SDK, maps: MAPS, onConflict });
  for (const c of pulled.conflicts)
    step(
      `${name}: conflict on ${c.key}: this side had "${c.local?.fullName}", ` +
        `the engine "${c.remote?.fullName}"; kept "${c.kept?.fullName}".`,
    );
  const sent = await exportDexEntryChanges(device, { since, sdk: SDK, maps: MAPS });
  applyEntryChanges(sent.changes);
  await device.acknowledgeChanges(sent.checkpoint);
  step(`${name}: pulled (${count(pulled.conflicts.length, "conflict")}), sent ${count(sent.changes.length, "entry change")}.`);
  return sent.checkpoint;
}

/** The engine gets this device's directory, and the second device the engine's copy. */
async function restore() {
  $("second-steps").replaceChildren();
  engine.clear();
  const requests = exportDexRequests(store, { flowId: "customer-directory", sdk: SDK, maps: MAPS });
  for await (const request of requests) setAttributes(request);
  const { checkpoint } = requests;
  await store.acknowledgeChanges(checkpoint);
  step(`This device sent its directory: the engine holds ${engine.size} partitions.`);
  // A new second device each time: its database is deleted and made again.
  second?.close();
  await new Promise((done, fail) => {
    const request = indexedDB.deleteDatabase(SECOND_DEVICE);
    request.onsuccess = done;
    request.onerror = () => fail(request.error);
  });
  second = openAttrmap({ name: SECOND_DEVICE });
  const { applied } = await importDexAttributes(second, getAttributes(), { sdk: SDK, maps: MAPS });
  const count = await (await second.customerDirectory()).count();
  step(`The second device restored ${applied[CUSTOMER_PROFILES_MAP] ?? 0} partitions from the engine: ${count} profiles.`);
  return { checkpoint, secondCheckpoint: await second.changesCheckpoint(), count };
}

async function conflict() {
  const keep = $("second-keep").value;
  const checkpoints = await restore();
  if (checkpoints.count === 0) throw new Error("the directory is empty: save a profile or load the samples first");
  const [profile] = (await (await store.customerDirectory()).page({ limit: 1 })).entries.map(([, p]) => p);
  const here = await store.customerDirectory();
  const there = await second.customerDirectory();
  await here.upsertProfile({ ...profile, fullName: `${profile.fullName} (this device)` });
  await there.upsertProfile({ ...profile, fullName: `${profile.fullName} (second device)` });
  step(`Both devices changed ${profile.emailAddress}.`);
  await sync(store, "This device", checkpoints.checkpoint);
  const onConflict = keep === "local" ? ({ local }) => local : undefined;
  await sync(second, "Second device", checkpoints.secondCheckpoint, onConflict);
  await sync(store, "This device", await store.changesCheckpoint());
  const [a, b] = await Promise.all([here.getProfile(profile.emailAddress), there.getProfile(profile.emailAddress)]);
  step(`Now both devices and the engine have "${a.fullName}"${a.fullName === b.fullName ? "" : ` and "${b.fullName}"`}.`);
  text(
    "second-code",
    libraryCall([
      'import { exportDexEntryChanges, importDexAttributes } from "attrmap/dex";',
      "// response: what the backend's GetAttributes(allKeys) answered, every blob loaded",
      `const { conflicts } = await importDexAttributes(store, response, { sdk: ${js(SDK)}${
        keep === "local" ? ", onConflict: ({ local }) => local" : ""
      } });`,
      `const { changes, checkpoint } = await exportDexEntryChanges(store, { since, sdk: ${js(SDK)} });`,
      "// the backend applies `changes` through the flow's locking RPC, then:",
      "await store.acknowledgeChanges(checkpoint);",
    ]),
  );
  return `${profile.emailAddress} is "${a.fullName}" on both devices.`;
}

/** Runs a task of the panel with its buttons disabled, its message from the answer or the error. */
function run(work) {
  return async () => {
    const buttons = ["second-restore", "second-conflict"].map($);
    for (const button of buttons) button.disabled = true;
    try {
      result("second-message", true, await work());
    } catch (error) {
      result("second-message", false, describeError(error));
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  };
}

export function initSecondDevice(s) {
  store = s;
  $("second-restore").addEventListener(
    "click",
    run(async () => `The second device holds ${(await restore()).count} profiles, as the engine does.`),
  );
  $("second-conflict").addEventListener("click", run(conflict));
}
