// Sample data: a bulk import with the package's batch writes (the reference API has no bulk
// endpoint), with progress, and a view of how full the partitions and chunks are.
import { partitionName } from "./attrmap/dist/index.js";
import { $, text } from "./dom.js";

const BATCH = 500;

export async function importSamples(store, profiles, subscribers) {
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  const total = profiles + subscribers;
  const progress = $("bulk-progress");
  progress.max = Math.max(total, 1);
  progress.value = 0;
  $("bulk-import").disabled = true;
  const stamp = Date.now().toString(36);
  try {
    for (let done = 0; done < profiles; done += BATCH) {
      const n = Math.min(BATCH, profiles - done);
      await directory.upsertProfiles(Array.from({ length: n }, (_, i) => ({ emailAddress: `sample${done + i}@example.com`, fullName: `Sample ${done + i}`, companyName: "Example", customerTier: ["bronze", "silver", "gold"][(done + i) % 3] })));
      progress.value = done + n;
      text("bulk-message", `Imported ${done + n} of ${profiles} profiles…`);
    }
    for (let done = 0; done < subscribers; done += BATCH) {
      const n = Math.min(BATCH, subscribers - done);
      await archive.registerSubscribers(Array.from({ length: n }, (_, i) => ({ subscriberId: `sample-${stamp}-${done + i}`, deliveryAddress: `sample${done + i}@example.com` })));
      progress.value = profiles + done + n;
      text("bulk-message", `Imported ${done + n} of ${subscribers} subscribers…`);
    }
    text("bulk-message", `Done: ${profiles} profiles and ${subscribers} subscribers imported.`);
  } catch (error) {
    text("bulk-message", `Import stopped: ${error.code ?? ""} ${error.message}`);
  } finally {
    $("bulk-import").disabled = false;
  }
  await showFill(store);
}

export async function showFill(store) {
  // Read everything first, then draw, so the view never shows half an update.
  const directory = await store.customerDirectory();
  const archive = await store.subscriberArchive();
  const [stored, state] = await Promise.all([directory.map.partitionSizes(), archive.log.state()]);
  const count = directory.map.partitionCount;
  const sizes = Array.from({ length: count }, (_, i) => stored.get(partitionName(i, count)) ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const max = Math.max(...sizes, 1);
  const canvas = $("fill-chart");
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#2f6fde";
  const width = canvas.width / sizes.length;
  sizes.forEach((n, i) => ctx.fillRect(i * width, canvas.height * (1 - n / max), width, (canvas.height * n) / max));
  const used = sizes.filter((n) => n > 0).length;
  text("fill-partitions", `${total} profiles in ${used} of ${sizes.length} partitions: ${Math.min(...sizes)} to ${max} per partition, ${(total / sizes.length).toFixed(1)} on average.`);
  const records = state.nextSequence - 1;
  const chunk = archive.log.chunkSize;
  const archived = records === 0 ? 0 : Math.floor((records - 1) / chunk);
  const inCurrent = records - archived * chunk;
  text("fill-chunks", `${records} subscribers: ${archived} archived chunks of ${chunk}, and ${inCurrent} of ${chunk} in the current chunk.`);
  $("fill-current").max = chunk;
  $("fill-current").value = inCurrent;
}

export function initBulk(store) {
  $("bulk-import").addEventListener("click", () => void importSamples(store, Number($("bulk-profiles").value), Number($("bulk-subscribers").value)));
  $("fill-refresh").addEventListener("click", () => void showFill(store));
}
