// The directory: a form that saves profiles, a live page of them, and their count.
import { AttrmapError, type CustomerProfile } from "attrmap/browser";
import { useLiveQuery } from "attrmap/react";
import { type FormEvent, useState } from "react";
import { deleteProfile, saveProfile, store } from "./store.ts";

const PAGE_SIZE = 5;
const EMPTY = { emailAddress: "", fullName: "", companyName: "", customerTier: "" };

export function Directory() {
  const [form, setForm] = useState<CustomerProfile>(EMPTY);
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  // Map pages go forward by cursor; the cursors of the pages before are kept to go back.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const after = cursors.at(-1);
  // The result names its cursor: until the page of a new cursor arrives, the last one stays shown.
  const page = useLiveQuery(
    store,
    async (s) => ({
      after,
      ...(await (await s.customerDirectory()).page(after === undefined ? { limit: PAGE_SIZE } : { after, limit: PAGE_SIZE })),
    }),
    [after],
  );
  const loading = page?.after !== after;
  const count = useLiveQuery(store, async (s) => (await s.customerDirectory()).count());

  async function save(event: FormEvent) {
    event.preventDefault();
    try {
      const saved = await saveProfile(form);
      setMessage({ ok: true, text: `Saved ${saved.emailAddress}.` });
      setForm(EMPTY);
    } catch (error) {
      // An AttrmapError names what was wrong: invalid_email, and which rule it broke.
      setMessage({ ok: false, text: error instanceof AttrmapError ? `${error.code}: ${error.message}` : String(error) });
    }
  }

  const field = (name: keyof CustomerProfile, label: string) => (
    <label>
      {label}
      <input name={name} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
    </label>
  );

  return (
    <section aria-labelledby="directory-title">
      <h2 id="directory-title">
        Directory <span className="count">{count === undefined ? "" : `${count} profiles`}</span>
      </h2>
      <form onSubmit={(e) => void save(e)}>
        {field("emailAddress", "Email")}
        {field("fullName", "Full name")}
        {field("companyName", "Company")}
        {field("customerTier", "Tier")}
        <button type="submit">Save</button>
      </form>
      {message && (
        <p role="status" className={message.ok ? "ok" : "error"}>
          {message.text}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Tier</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {page?.entries.map(([email, profile]) => (
            <tr key={email}>
              <td>{email}</td>
              <td>{profile.fullName}</td>
              <td>{profile.customerTier}</td>
              <td className="actions">
                <button type="button" onClick={() => setForm(profile)}>
                  Edit
                </button>
                <button type="button" onClick={() => void deleteProfile(email)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav className="pager" aria-label="Directory pages">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <span aria-busy={loading}>
          Page {cursors.length}
          {loading ? "…" : ""}
        </span>
        <button type="button" disabled={loading || !page?.next} onClick={() => page?.next && setCursors([...cursors, page.next])}>
          Next
        </button>
      </nav>
    </section>
  );
}
