import type { PowerControl } from '../../../../domain/power-control.ts';

function watts(w: number, signed = true): string {
  const sign = w < 0 ? '-' : w > 0 && signed ? '+' : '';
  const abs = Math.abs(w);
  if (abs < 1000) return `${sign}${abs} W`;
  return `${sign}${Number((abs / 1000).toFixed(1))} kW`;
}

/**
 * A power control in short form for a bar label, e.g. `-3 kW, stop at 90%`: the battery
 * power with its sign (negative charges, spec 2.2), the cut-off that stops it ("stop at"), the
 * other cut-off and site limits after it.
 */
export function shortControlLabel(control: PowerControl): string {
  const parts: string[] = [];
  const power = control.targetBatteryPowerW;
  const charge = control.chargeCutoffSocPercent;
  const discharge = control.dischargeCutoffSocPercent;
  if (power !== undefined) parts.push(watts(power));
  if (charge !== undefined)
    parts.push(power !== undefined && power < 0 ? `stop at ${charge}%` : `charge stop ${charge}%`);
  if (discharge !== undefined)
    parts.push(
      power !== undefined && power > 0 ? `stop at ${discharge}%` : `discharge stop ${discharge}%`,
    );
  if (control.siteImportLimitW !== undefined)
    parts.push(`import ≤ ${watts(control.siteImportLimitW, false)}`);
  if (control.siteExportLimitW !== undefined)
    parts.push(`export ≤ ${watts(control.siteExportLimitW, false)}`);
  return parts.join(', ');
}
