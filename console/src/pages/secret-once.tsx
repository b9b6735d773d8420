/**
 * A new key's secret, shown this once: a read-only field to select, a copy button and a warning that it cannot be
 * shown again (the server keeps only its hash). The secret lives in this component's state only, never in the URL.
 */
import { useRef, useState } from 'preact/hooks';

export function SecretOnce({ name, secret }: { name: string; secret: string }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      // No clipboard permission: select the text so that the person can copy it by hand.
      field.current?.select();
      setCopied('no');
    }
  };
  return (
    <section class="card secret-once" aria-labelledby="secret-heading" data-testid="secret-once">
      <h2 class="small" id="secret-heading">
        Key {name} created: copy its secret now
      </h2>
      <p class="warning">
        <strong>This is the only time the secret is shown.</strong> The server keeps only its hash: if it is lost,
        revoke the key and create another.
      </p>
      <label for="new-secret">Secret</label>
      <div class="row">
        <input
          id="new-secret"
          ref={field}
          class="secret"
          readOnly
          value={secret}
          spellcheck={false}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <span role="status" class="muted small">
          {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'no' ? 'Selected: press Ctrl+C to copy.' : ''}
        </span>
      </div>
    </section>
  );
}
