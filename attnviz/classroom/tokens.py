"""The classroom's secrets and names: room codes people read off a projector, presenter keys
(only their SHA-256 is stored), and the random per-browser voter ids."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid

# No 0/O, 1/I: a code read off a projector at the back of a hall cannot be mistyped that way.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
_VOTER_ID = re.compile(r"[0-9a-f]{32}")
_SEPARATORS = re.compile(r"[\s\-_.]+")


def new_room_code() -> str:
    """Six characters drawn uniformly from `CODE_ALPHABET` (32**6, about 10**9 codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(typed: str) -> str | None:
    """A typed code as stored (upper case, spaces and dashes dropped), or None if it cannot be
    one: wrong length or a character outside the alphabet."""
    if not isinstance(typed, str) or len(typed) > 40:
        return None
    code = _SEPARATORS.sub("", typed).upper()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def new_presenter_key() -> str:
    """A URL-safe secret of 32 random bytes: it goes in the presenter's link, never stored."""
    return secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """SHA-256 of the key, hex. A random 256-bit key needs no slow hash (nothing to guess)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_matches(key: object, stored_hash: str) -> bool:
    """Whether `key` hashes to `stored_hash`, compared in constant time."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return False
    return hmac.compare_digest(hash_key(key), stored_hash)


def new_voter_id() -> str:
    """A random voter id (a uuid4's 32 hex digits), one per browser; no personal data."""
    return uuid.uuid4().hex


def is_voter_id(value: object) -> bool:
    """Whether `value` has a voter id's shape: exactly 32 lower-case hex digits."""
    return isinstance(value, str) and _VOTER_ID.fullmatch(value) is not None
