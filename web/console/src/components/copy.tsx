import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState('');
  const copy = () => {
    navigator.clipboard.writeText(text).then(() => setDone('Copied.'), () => setDone('Copying failed: select the text and copy it.'));
  };
  return (
    <>
      <button type="button" onClick={copy}>{label}</button>
      <span role="status" class="hint">{done}</span>
    </>
  );
}
