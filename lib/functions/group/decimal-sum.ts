/**
 * Exact sums of Decimal values: each Decimal's text is read as an integer
 * number of units at a scale (digits after the point), and units are added
 * as bigints at the larger scale, so "0.1" + "0.2" is "0.3" and the output
 * keeps the finest scale it saw ("1.10" + "2" is "3.10").
 *
 * Bounded: a Decimal whose exponent or scale would pass MAX_DECIMAL_SCALE is
 * refused by `add` (the caller sums it as a float instead), so no input makes
 * a bigint of arbitrary size.
 */

/** Largest exponent magnitude and scale summed exactly. */
export const MAX_DECIMAL_SCALE = 400;

const DECIMAL_TEXT = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

export class DecimalSum {
  private units = 0n;
  private scale = 0;

  /** Adds a Decimal's text; false (nothing added) when it is not decimal text or is beyond the bounds. */
  add(text: string): boolean {
    const parts = DECIMAL_TEXT.exec(text.trim());
    if (!parts) return false;
    const [, sign, whole = '', fraction = '', exponentText = '0'] = parts;
    if (whole === '' && fraction === '') return false;
    const exponent = Number(exponentText);
    if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_DECIMAL_SCALE) return false;
    let scale = fraction.length - exponent;
    let units = BigInt(whole + fraction || '0');
    if (scale < 0) {
      units *= 10n ** BigInt(-scale);
      scale = 0;
    }
    if (scale > MAX_DECIMAL_SCALE) return false;
    if (sign === '-') units = -units;
    this.addUnits(units, scale);
    return true;
  }

  /**
   * The sum plus the integer `extra` (the Integer values of a sum that also
   * holds Decimals) as Decimal text: an optional '-', digits, and `scale`
   * fraction digits. Does not change the sum.
   */
  toText(extra = 0n): string {
    const units = this.units + extra * 10n ** BigInt(this.scale);
    const negative = units < 0n;
    const digits = (negative ? -units : units).toString().padStart(this.scale + 1, '0');
    const whole = digits.slice(0, digits.length - this.scale);
    const text = this.scale === 0 ? whole : `${whole}.${digits.slice(digits.length - this.scale)}`;
    return negative ? `-${text}` : text;
  }

  toNumber(): number {
    return Number(this.toText());
  }

  private addUnits(units: bigint, scale: number): void {
    if (scale > this.scale) {
      this.units *= 10n ** BigInt(scale - this.scale);
      this.scale = scale;
    } else if (scale < this.scale) {
      units *= 10n ** BigInt(this.scale - scale);
    }
    this.units += units;
  }
}
