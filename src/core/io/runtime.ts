/** The Node.js version and platform this run is on (for reports such as certify's). */
export function runtimeInfo(): { node: string; platform: string } {
  return { node: process.version, platform: `${process.platform}-${process.arch}` };
}
