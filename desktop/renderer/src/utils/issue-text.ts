type Translate = (key: string, named?: Record<string, unknown>, plural?: number) => string;

const ORIGIN: Record<string, string> = { string: 'chars', array: 'items', set: 'items', number: 'number', int: 'number', bigint: 'number', date: 'number' };

/**
 * A validation problem as a sentence in the console language. The one place the console turns
 * what zod says (its own checks of a form, or the daemon's `details.issues` of a 400) into field
 * messages: zod's default English ("Too small: expected number to be >=100") becomes "must be at
 * least 100" / "не меньше 100"; the house's own short messages ("must be at most 500",
 * "is required") are translated where known and otherwise kept.
 */
export function issueText(message: string, t: Translate): string {
  let m = /^Too (small|big): expected (\w+) to (?:be|have) ([<>]=?)(-?[\d.]+)/.exec(message);
  if (m) {
    const kind = ORIGIN[m[2]] ?? 'number';
    const bound = m[3].startsWith('>') ? (m[3] === '>' ? 'above' : 'min') : m[3] === '<' ? 'below' : 'max';
    if (kind !== 'number' && bound === 'min' && m[4] === '1') return t(`issues.${kind}.empty`);
    return t(`issues.${kind}.${bound}`, { n: Number(m[4]) }, Number(m[4]));
  }
  m = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (m) {
    if (m[2] === 'undefined') return t('issues.required');
    if (m[1] === 'int') return t('issues.integer');
    return t(m[1] === 'number' || m[1] === 'boolean' || m[1] === 'string' || m[1] === 'array' ? `issues.type.${m[1]}` : 'issues.invalid');
  }
  if (/^Invalid option: expected one of /.test(message)) return t('issues.option', { options: message.replace(/^Invalid option: expected one of /, '').replace(/"/g, '').replace(/\|/g, ', ') });
  if (message === 'Invalid email address') return t('issues.email');
  if (message === 'Invalid URL') return t('issues.url');
  if (/^Invalid number: must be a multiple of /.test(message)) return t('issues.multipleOf', { n: message.replace(/^Invalid number: must be a multiple of /, '') });
  if (/^(Invalid string: must match pattern|Invalid (ISO )?\w+$|Invalid input)/.test(message)) return t('issues.invalid');
  if (/^Unrecognized keys?: /.test(message) || message === 'is not allowed') return t('issues.notAllowed');
  if (message === 'is required') return t('issues.required');
  // The shared trimmed-text schemas' own words (shared/src/trimmed-text.ts).
  if (message === 'must not be empty') return t('issues.chars.empty');
  m = /^must be at most (\d+) characters$/.exec(message);
  if (m) return t('issues.chars.max', { n: Number(m[1]) }, Number(m[1]));
  m = /^must be at (least|most) (-?[\d.]+)$/.exec(message);
  if (m) return t(`issues.number.${m[1] === 'least' ? 'min' : 'max'}`, { n: Number(m[2]) }, Number(m[2]));
  if (message === 'must not be before from') return t('issues.reversed');
  return message;
}
