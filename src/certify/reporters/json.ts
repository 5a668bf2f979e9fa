/**
 * The json reporter: the report itself, as documented in docs/certify-report.schema.json
 * (`$schema` and `version` name it). Written byte for byte as reportJson makes it, so the
 * markdown report's SHA-256 digest matches the file.
 */
import { reportJson, type CertifyReport } from '../report.js';

export function renderJson(report: CertifyReport): string {
  return reportJson(report);
}
