// One store for the app: the IndexedDB database "customers", shared by every tab of the origin.
import { type CustomerProfileInput, openAttrmap } from "attrmap/browser";

export const store = openAttrmap({ name: "customers" });

/** What happened, kept in arrival order in a chunked log. */
export interface Activity {
  action: "saved" | "deleted";
  emailAddress: string;
  at: string;
}

export const directory = () => store.customerDirectory();
export const activityLog = () => store.chunkedLog<Activity>("activity");

/** Saves a profile and notes it in the activity log. */
export async function saveProfile(profile: CustomerProfileInput) {
  const saved = await (await directory()).upsertProfile(profile);
  await (await activityLog()).append({ action: "saved", emailAddress: saved.emailAddress, at: new Date().toISOString() });
  return saved;
}

/** Deletes a profile and notes it. */
export async function deleteProfile(emailAddress: string) {
  if (await (await directory()).deleteProfile(emailAddress))
    await (await activityLog()).append({ action: "deleted", emailAddress, at: new Date().toISOString() });
}
