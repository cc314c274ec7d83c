/**
 * An address as logs may show it: enough to tell two apart while debugging a delivery, never enough
 * to contact anyone (`a…@example.com`, `+1…23`). Personal data stays out of logs (issue 13): the
 * order id says whose message it was.
 */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at > 0) return `${address[0]}…${address.slice(at)}`;
  const digits = address.replace(/[^\d+]/g, '');
  return digits.length > 4 ? `${digits.slice(0, 2)}…${digits.slice(-2)}` : '…';
}
