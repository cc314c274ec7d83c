/**
 * An instant as a carrier would print it at a fixed UTC offset. Carrier times are whole seconds, so
 * milliseconds are dropped.
 */
export interface LocalTime {
  /** 'YYYYMMDD' (UPS) */
  compactDate: string;
  /** 'HHMMSS' (UPS) */
  compactTime: string;
  /** 'YYYY-MM-DD' */
  isoDate: string;
  /** 'HH:MM:SS' */
  isoTime: string;
  /** 'YYYY-MM-DDTHH:MM:SS-05:00' */
  isoWithOffset: string;
  /** 'YYYY-MM-DDTHH:MM:SS' (no offset) */
  isoLocal: string;
  /** '-05:00' */
  offset: string;
}

export function toLocalTime(at: Date, offsetMinutes: number): LocalTime {
  const shifted = new Date(Math.floor(at.getTime() / 1000) * 1000 + offsetMinutes * 60_000);
  const isoLocal = shifted.toISOString().slice(0, 19);
  const isoDate = isoLocal.slice(0, 10);
  const isoTime = isoLocal.slice(11, 19);
  const offset = formatOffset(offsetMinutes);
  return {
    compactDate: isoDate.replaceAll('-', ''),
    compactTime: isoTime.replaceAll(':', ''),
    isoDate,
    isoTime,
    isoWithOffset: `${isoLocal}${offset}`,
    isoLocal,
    offset,
  };
}

/** '-05:00'; `short` drops the hour's leading zero as USPS does ('-5:00', usps yaml GMTOffset example '-7:00'). */
export function formatOffset(offsetMinutes: number, short = false): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const hours = String(Math.floor(absolute / 60));
  return `${sign}${short ? hours : hours.padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

/** UTC, whole seconds: '2024-04-04T14:03:12Z'. */
export function utcSeconds(at: Date): string {
  return `${new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
