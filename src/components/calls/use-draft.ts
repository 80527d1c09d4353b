import { useEffect, useRef, useState } from "react";

/**
 * A value a person types, committed after a pause (so one request goes out per pause, not per key).
 * When the committed value changes from outside (a cleared filter, a deep link), the draft follows it.
 */
export function useDraft<T>(committed: T, commit: (value: T) => void, delayMs = 400): [T, (value: T) => void] {
  const [draft, setDraft] = useState(committed);
  const [seen, setSeen] = useState(committed);
  if (!Object.is(committed, seen)) {
    setSeen(committed);
    setDraft(committed);
  }
  const commitRef = useRef(commit);
  useEffect(() => {
    commitRef.current = commit;
  });
  useEffect(() => {
    if (Object.is(draft, committed)) return;
    const timer = setTimeout(() => commitRef.current(draft), delayMs);
    return () => clearTimeout(timer);
  }, [draft, committed, delayMs]);
  return [draft, setDraft];
}
