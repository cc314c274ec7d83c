import { formatNumber, type Evaluation, type Figure } from './targets.ts';

/** Where and how the figures were measured: a ratio means little without it. */
export interface RunContext {
  date: Date;
  commit: string;
  mode: 'quick' | 'full';
  /** Rows seeded in each large table for the constancy run. */
  seedRows: number;
  /** The constancy run's alternating empty/large pairs: how many, and each run's length. */
  pairs?: { count: number; seconds: number };
  /** Runs per load scenario; the figure is their median when more than one. */
  runs: number;
  loadSeconds: number;
  connections: number;
  machine: { cpu: string; cores: number; memoryGb: number };
  postgres: string;
  loadAverageStart: readonly number[];
  loadAverageEnd: readonly number[];
  elapsedSeconds: number;
  /** `finished`, or how far a run that was stopped got (`after step burst`, `interrupted`). */
  state?: string;
}

/** A sub-step run beside the HTTP scenarios (tracking, storage), or the hook where one will go. */
export interface StepOutcome {
  name: string;
  status: 'ran' | 'failed' | 'not built yet';
  seconds: number | null;
  /** Markdown the step printed, or why it failed, or what fills the hook. */
  body: string;
}

export function renderReport(
  context: RunContext,
  evaluations: readonly Evaluation[],
  figures: readonly Figure[],
  steps: readonly StepOutcome[],
): string {
  const passed = evaluations.filter((e) => e.verdict === 'PASS').length;
  const undecided = evaluations.filter((e) => e.verdict === 'NOT DECIDED').length;
  const lines = [
    '# Doorstep bench',
    '',
    `\`npm run bench${context.mode === 'quick' ? ' -- --quick' : ''}\` on ${context.date.toISOString()}, commit \`${context.commit}\`.`,
    '',
    `- Machine: ${context.machine.cpu}, ${context.machine.cores} cores, ${formatNumber(context.machine.memoryGb)} GB memory; ${context.postgres} (fsync on), private redis-server`,
    `- Load average (1, 5, 15 min): ${formatLoad(context.loadAverageStart)} at start, ${formatLoad(context.loadAverageEnd)} at the end`,
    `- Load: autocannon in its own process, ${context.connections} connections, ${context.loadSeconds} s per run, ${context.runs === 1 ? 'one run per scenario' : `median of ${context.runs} runs per scenario`}`,
    `- Large tables: ${context.seedRows.toLocaleString('en-US')} rows each${context.mode === 'quick' ? ' (--quick seeds fewer than the 1,000,000 the target names)' : ''}${context.pairs ? `; ${context.pairs.count} pairs of ${context.pairs.seconds} s runs, empty and large alternating, judged on the median pair ratio's confidence interval` : ''}`,
    `- ${context.state && context.state !== 'finished' ? `Not finished (${context.state}) after` : 'Took'} ${Math.round(context.elapsedSeconds)} s; ${passed} of ${evaluations.length} targets met${undecided > 0 ? `, ${undecided} not decided (a confidence interval that straddles the target, or too few runs to judge)` : ''}`,
    '',
    '## Targets',
    '',
    '| Target | Measured | Ratio | Result | Why missed |',
    '|---|---|---|---|---|',
    ...evaluations.map(
      (e) =>
        `| ${cell(e.target.label)} | ${measured(e)} | ${e.ratio === null ? '—' : `${formatNumber(e.ratio)}×`} | ${e.verdict} | ${cell(e.reason)} |`,
    ),
    '',
    '## Every figure',
    '',
    '| What | Value | Notes |',
    '|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${cell(f.label)} | ${f.value === null ? '—' : `${formatNumber(f.value)} ${f.unit}`} | ${cell([f.note, f.problem].filter(Boolean).join('; '))} |`,
    ),
  ];
  for (const step of steps) {
    lines.push(
      '',
      `## ${step.name} (${step.status}${step.seconds === null ? '' : `, ${Math.round(step.seconds)} s`})`,
      '',
      demoteHeadings(step.body.trim()),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The figure, or for one judged on an interval the interval itself: the verdict rests on it. */
function measured(e: Evaluation): string {
  if (e.value === null) return '—';
  if (e.interval)
    return `${formatNumber(e.interval.low)}–${formatNumber(e.interval.high)}× (${Number((e.interval.confidence * 100).toFixed(1))}% interval)`;
  return `${formatNumber(e.value)} ${e.unit}${e.beside ? ` (${e.beside})` : ''}`;
}

function formatLoad(values: readonly number[]): string {
  return values.map((v) => v.toFixed(2)).join(', ');
}

/** Table cells cannot hold pipes or line breaks. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** A step's own report keeps its structure under this report's section heading. */
function demoteHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,5}) /gm, '##$1 ');
}
