/**
 * The product's rules for a website's password, written once: the config check and the bundled
 * emulator both read them. The product takes 1 to 128 characters (Laravel's `between`, counted
 * as PHP's mb_strlen counts: code points), and its website resource answers
 * `'password' => ($this->password ? true : false)`, so a stored `"0"` (PHP's one false string)
 * reads back as "no password": held, but never shown to be, and every plan would set it again.
 */
export const MAX_PASSWORD = 128;

/** What is wrong with a password for the product, or undefined when it is fine. */
export type PasswordRuleProblem = 'empty' | 'too long' | 'reads back as not set';

export function passwordRuleProblem(value: string): PasswordRuleProblem | undefined {
  const length = [...value].length;
  if (length === 0) return 'empty';
  if (length > MAX_PASSWORD) return 'too long';
  if (value === '0') return 'reads back as not set';
  return undefined;
}

/** Why, in words that say nothing of the value beyond the rule it breaks. */
export function passwordRuleWords(problem: PasswordRuleProblem): string {
  switch (problem) {
    case 'empty':
      return 'is empty; the service takes a password of 1 to 128 characters';
    case 'too long':
      return `is longer than ${MAX_PASSWORD} characters, the most the service takes`;
    case 'reads back as not set':
      return 'is "0", which the service stores but then reports as no password (it reads it as false), so every plan would set it again: choose another';
  }
}
