/**
 * A sequential colour scale for 0-100 scores, one for light and one for dark mode, with the
 * text colour that reads best on each cell (WCAG relative luminance). Cells always print their
 * number, so the colour only helps the eye.
 */
import type { CSSProperties } from "react";

type Rgb = [number, number, number];

const LIGHT: [Rgb, Rgb] = [
  [240, 249, 255], // sky-50
  [12, 74, 110], // sky-900
];
const DARK: [Rgb, Rgb] = [
  [15, 23, 42], // slate-900
  [125, 211, 252], // sky-300
];

const mix = ([a, b]: [Rgb, Rgb], t: number): Rgb => [0, 1, 2].map((i) => Math.round(a[i]! + (b[i]! - a[i]!) * t)) as Rgb;

function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** White text when it contrasts more than near-black text does. */
const wantsLightText = (c: Rgb) => (1.05 / (luminance(c) + 0.05)) > ((luminance(c) + 0.05) / 0.05);

const css = ([r, g, b]: Rgb) => `rgb(${r} ${g} ${b})`;

export interface HeatCell {
  style: CSSProperties;
  className: string;
}

/** Style for a cell of score 0-100: CSS variables for both themes plus matching text classes. */
export function heatCell(score: number): HeatCell {
  const t = Math.min(1, Math.max(0, score / 100));
  const light = mix(LIGHT, t);
  const dark = mix(DARK, t);
  return {
    style: { "--heat-light": css(light), "--heat-dark": css(dark) } as CSSProperties,
    className: `bg-[var(--heat-light)] dark:bg-[var(--heat-dark)] ${wantsLightText(light) ? "text-white" : "text-black"} ${wantsLightText(dark) ? "dark:text-white" : "dark:text-black"}`,
  };
}

/** Stops for a legend gradient. */
export const heatLegend = {
  light: `linear-gradient(to right, ${css(LIGHT[0])}, ${css(LIGHT[1])})`,
  dark: `linear-gradient(to right, ${css(DARK[0])}, ${css(DARK[1])})`,
};
