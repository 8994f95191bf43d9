import { BarChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { computed } from 'vue';
import { SEVERITIES, type Severity } from '../../../../shared/src/event.schema';
import { usePrefsStore } from '../features/prefs/prefs.store';

// Only the chart parts the console draws are bundled.
use([BarChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

/** Chart colours read from the current theme's CSS variables, recomputed when the theme changes. */
export function useChartTheme() {
  const prefs = usePrefsStore();
  return computed(() => {
    void prefs.theme;
    const css = getComputedStyle(document.documentElement);
    const v = (name: string) => css.getPropertyValue(name).trim();
    const severity = Object.fromEntries(SEVERITIES.map((s) => [s, v(`--sev-${s}-fg`)])) as Record<Severity, string>;
    return { text: v('--text'), muted: v('--text-muted'), border: v('--border'), accent: v('--accent'), bg: v('--bg-elev'), severity };
  });
}
