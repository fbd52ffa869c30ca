// The live classroom's voter id (attnviz/ui/lecture/voter_id.py): a random id per browser, kept in
// localStorage so that a reload votes as the same device (the store counts one vote per id per
// round). 32 lower-case hex digits (a uuid4 without dashes); no personal data. Components v2:
// runs in the app's page, offline; sends the id once per mount.
const STORAGE_KEY = "attnviz_voter_id";
const SHAPE = /^[0-9a-f]{32}$/;

function freshId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID().replace(/-/g, "");
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function storedId() {
  try {
    const found = localStorage.getItem(STORAGE_KEY);
    if (found && SHAPE.test(found)) return found;
    const made = freshId();
    localStorage.setItem(STORAGE_KEY, made);
    return made;
  } catch {
    return null; // storage refused (private mode): the page keeps its session id
  }
}

export default function (component) {
  const id = storedId();
  if (id) component.setStateValue("id", id); // the same value again does not rerun the app
}
