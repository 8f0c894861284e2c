// Sample data: a bulk import with the library's batch writes (the HTTP API has no bulk
// endpoint), with progress, and a view of how full the partitions and chunks are.
import { emailPartition, partitionName } from "./attrmap/dist/bundle/browser.js";
import { libraryCall } from "./code.js";
import { $, clearOnInvalid, clearResult, describeError, oneAtATime, result, text } from "./dom.js";

const MAX_SAMPLES = 200_000;
/** Records per transaction: whole partitions are kept together, so each is written once. */
const BATCH = 5_000;
const TIERS = ["bronze", "silver", "gold"];
/** The fill chart is redrawn during an import at most this often: each redraw reads every partition. */
const REDRAW_MS = 1000;

/** A count typed into `id`: a whole number from 0 to 200,000, or an error naming the field. */
function countOf(id, label) {
  const raw = $(id).value.trim();
  const n = Number(raw);
  if (raw === "" || !Number.isSafeInteger(n) || n < 0 || n > MAX_SAMPLES) {
    throw new Error(`${label} must be a whole number from 0 to ${MAX_SAMPLES.toLocaleString("en")}, not "${raw}".`);
  }
  return n;
}

/** The generated profiles, in batches of whole partitions. */
function profileBatches(count, partitions) {
  const byPartition = new Map();
  for (let i = 0; i < count; i++) {
    const profile = {
      emailAddress: `sample${i}@example.com`,
      fullName: `Sample ${i}`,
      companyName: "Example",
      customerTier: TIERS[i % 3],
    };
    const name = emailPartition(profile.emailAddress, partitions).partitionName;
    if (!byPartition.has(name)) byPartition.set(name, []);
    byPartition.get(name).push(profile);
  }
  const batches = [[]];
  for (const group of byPartition.values()) {
    if (batches.at(-1).length >= BATCH) batches.push([]);
    batches.at(-1).push(...group);
  }
  return batches.filter((b) => b.length > 0);
}

function showProgress(done, total, profiles, subscribers) {
  $("sample-progress").max = Math.max(total, 1);
  $("sample-progress").value = done;
  result(
    "sample-message",
    true,
    `Imported ${done.toLocaleString("en")} of ${total.toLocaleString("en")} records ` +
      `(${profiles} profiles, then ${subscribers} subscribers)…`,
  );
}

export async function importSamples(store) {
  let profiles;
  let subscribers;
  try {
    profiles = countOf("sample-profiles", "Profiles");
    subscribers = countOf("sample-subscribers", "Subscribers");
  } catch (error) {
    result("sample-message", false, error.message);
    return;
  }
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  const total = profiles + subscribers;
  const stamp = Date.now().toString(36);
  $("sample-import").disabled = true;
  let done = 0;
  showProgress(done, total, profiles, subscribers);
  try {
    let drawn = Number.NEGATIVE_INFINITY;
    for (const batch of profileBatches(profiles, directory.map.partitionCount)) {
      await directory.upsertProfiles(batch);
      showProgress((done += batch.length), total, profiles, subscribers);
      if (performance.now() - drawn >= REDRAW_MS) {
        drawn = performance.now();
        await showFill(store);
      }
    }
    for (let at = 0; at < subscribers; at += BATCH) {
      const n = Math.min(BATCH, subscribers - at);
      await archive.registerSubscribers(
        Array.from({ length: n }, (_, i) => ({
          subscriberId: `sample-${stamp}-${at + i}`,
          deliveryAddress: `sample${at + i}@example.com`,
        })),
      );
      showProgress((done += n), total, profiles, subscribers);
    }
    result("sample-message", true, `Done: ${profiles} profiles and ${subscribers} subscribers imported.`);
  } catch (error) {
    result("sample-message", false, `Import stopped: ${describeError(error)}`);
  } finally {
    $("sample-import").disabled = false;
  }
  text(
    "samples-code",
    libraryCall([
      "const directory = await store.customerDirectory();",
      "await directory.upsertProfiles(profiles); // one transaction: all or nothing",
      "const archive = await store.subscriberArchive();",
      "await archive.registerSubscribers(subscribers);",
      "await directory.map.partitionSizes(); // Map of partition name to entries",
      "await archive.log.stats(); // { records, currentRecords, archivedChunks, chunkSize, nextSequence }",
    ]),
  );
  await showFill(store);
}

function drawChart(sizes) {
  const canvas = $("fill-chart");
  const ctx = canvas.getContext("2d");
  const [left, bottom, top] = [48, 28, 10];
  const width = canvas.width - left - 8;
  const height = canvas.height - bottom - top;
  const max = Math.max(...sizes, 1);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#2f6fde";
  const bar = width / sizes.length;
  for (const [i, n] of sizes.entries())
    ctx.fillRect(left + i * bar, top + height * (1 - n / max), Math.max(bar, 1), (height * n) / max);
  ctx.strokeStyle = "#4a5563";
  ctx.beginPath();
  ctx.moveTo(left, top);
  ctx.lineTo(left, top + height);
  ctx.lineTo(left + width, top + height);
  ctx.stroke();
  ctx.fillStyle = "#1d232a";
  ctx.font = "13px system-ui, sans-serif";
  ctx.textAlign = "right";
  ctx.fillText(String(max), left - 6, top + 10);
  ctx.fillText("0", left - 6, top + height);
  ctx.textAlign = "left";
  ctx.fillText("profiles", 4, top + height / 2);
  ctx.fillText("0", left, canvas.height - 8);
  ctx.textAlign = "center";
  ctx.fillText("partition index", left + width / 2, canvas.height - 8);
  ctx.textAlign = "right";
  ctx.fillText(String(sizes.length - 1), left + width, canvas.height - 8);
}

/** Reads the partitions and the log, then draws; calls while one runs are folded into one more run. */
export const showFill = oneAtATime(async (store) => {
  // Read everything first, then draw, so the view never shows half an update.
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  const [stored, stats] = await Promise.all([directory.map.partitionSizes(), archive.log.stats()]);
  const count = directory.map.partitionCount;
  const sizes = Array.from({ length: count }, (_, i) => stored.get(partitionName(i, count)) ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  drawChart(sizes);
  const summary =
    total === 0
      ? `No profiles yet: the ${count} partitions are empty.`
      : `${total} profiles in ${stored.size} of ${count} partitions: ` +
        `${Math.min(...sizes)} to ${Math.max(...sizes)} per partition, ${(total / count).toFixed(1)} on average.`;
  text("fill-partitions", summary);
  $("fill-chart").setAttribute("aria-label", `Profiles per partition. ${summary}`);
  text(
    "fill-chunks",
    `${stats.records} subscribers: ${stats.archivedChunks} archived chunks ` +
      `and ${stats.currentRecords} of ${stats.chunkSize} in the current chunk.`,
  );
  $("fill-current").max = stats.chunkSize;
  $("fill-current").value = stats.currentRecords;
});

async function resize(store) {
  const directory = await store.customerDirectory();
  const count = Number($("resize-count").value);
  const progress = $("resize-progress");
  progress.value = 0;
  $("resize-button").disabled = true;
  try {
    await directory.map.resize(count, {
      onProgress: ({ done, total }) => {
        progress.max = Math.max(total, 1);
        progress.value = done;
      },
    });
    progress.max = progress.value = 1;
    result(
      "resize-message",
      true,
      `The directory has ${directory.map.partitionCount} partitions (layout version ${directory.map.layoutVersion}).`,
    );
  } catch (error) {
    result("resize-message", false, describeError(error));
  } finally {
    $("resize-button").disabled = false;
  }
  text(
    "samples-code",
    libraryCall([
      "const directory = await store.customerDirectory();",
      `await directory.map.resize(${count}, { onProgress: ({ done, total }) => bar.value = done / total });`,
      "// One transaction: every profile moves to the partition its hash names under the new count.",
    ]),
  );
  await showFill(store);
}

export async function initSamples(store) {
  $("resize-count").value = (await store.customerDirectory()).map.partitionCount;
  $("resize-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void resize(store);
  });
  clearOnInvalid($("resize-form"), "resize-message");
  $("samples-form").addEventListener("submit", (e) => {
    e.preventDefault();
    clearResult("sample-message");
    void importSamples(store);
  });
  void showFill(store);
}
