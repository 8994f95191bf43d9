/** Daily SSH/RDP reports: aggregation, HTML rendering, the leader-safe daily job. */
export { ReportsService, type GeneratedReport } from './reports.service.js';
export { aggregateDailyReports } from './reports.rules.js';
export { renderReportHtml } from './reports.render.js';
export { reportsOperations } from './reports.operations.js';
