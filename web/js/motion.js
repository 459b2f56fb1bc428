// Motion: a played card flies to the waste, a turned card flips, points rise from the
// card that made them, a win rains cards. All of it off under prefers-reduced-motion
// (and the CSS turns every animation off there too). Nothing waits on an animation: the
// page's state is the server's the moment it arrives; motion is drawn over it.

import { paintCard } from "./table.js";

const reduced = matchMedia("(prefers-reduced-motion: reduce)");
export const motionOn = () => !reduced.matches;

const layer = () => document.getElementById("fx");

function relative(rect) {
  const box = layer().getBoundingClientRect();
  return { left: rect.left - box.left, top: rect.top - box.top, width: rect.width, height: rect.height };
}

/** A copy of a card flying from `from` (a DOMRect taken before the table changed) to the
 * element `to` (the waste's top card); `last`: a win's last card, slower and glowing. */
export function fly(code, from, to, { last = false } = {}) {
  if (!motionOn() || !from || !to) return;
  const target = to.getBoundingClientRect();
  const a = relative(from);
  const b = relative(target);
  const el = document.createElement("div");
  el.className = last ? "card flying last" : "card flying";
  paintCard(el, code);
  el.style.left = `${a.left}px`;
  el.style.top = `${a.top}px`;
  el.style.width = `${a.width}px`;
  el.style.height = `${a.height}px`;
  el.style.setProperty("--u", `${a.width / 2}px`);
  layer().append(el);
  to.style.visibility = "hidden";
  const dx = b.left - a.left + (b.width - a.width) / 2;
  const dy = b.top - a.top + (b.height - a.height) / 2;
  const s = b.width / a.width;
  const anim = el.animate(
    [
      { transform: "translate(0, 0) scale(1) rotate(0)" },
      { transform: `translate(${dx * 0.5}px, ${dy * 0.5 - (last ? 90 : 30)}px) scale(${(1 + s) / 2 + (last ? 0.6 : 0.08)}) rotate(${last ? -18 : -6}deg)`, offset: 0.5 },
      { transform: `translate(${dx}px, ${dy}px) scale(${s}) rotate(0)` },
    ],
    { duration: last ? 700 : 260, easing: "ease-out" },
  );
  const done = () => {
    el.remove();
    to.style.visibility = "";
  };
  anim.onfinish = done;
  anim.oncancel = done;
}

/** Turned cards flip over. */
export function flip(buttons) {
  if (!motionOn()) return;
  for (const b of buttons) {
    b.classList.remove("flipped");
    void b.offsetWidth;
    b.classList.add("flipped");
  }
}

/** "+4" rising from a card (`rect`), and "+15 peak" for a peak's bonus. */
export function points(rect, text, peak = false) {
  if (!motionOn() || !rect) return;
  const at = relative(rect);
  const el = document.createElement("div");
  el.className = peak ? "points peak" : "points";
  el.textContent = text;
  el.style.left = `${at.left + at.width / 2}px`;
  el.style.top = `${at.top + (peak ? -10 : 0)}px`;
  el.addEventListener("animationend", () => el.remove());
  layer().append(el);
}

/** A win: cards rain over the table. Resolves when it is over (at once without motion). */
export function celebrate() {
  if (!motionOn()) return Promise.resolve();
  const fx = layer();
  const suits = ["♠", "♥", "♦", "♣"];
  const falling = [];
  for (let i = 0; i < 24; i++) {
    const el = document.createElement("div");
    el.className = "confetti";
    el.textContent = suits[i % 4];
    if (i % 4 === 1 || i % 4 === 2) el.style.color = "#c8102e";
    el.style.left = `${(i * 37) % 100}%`;
    el.style.animationDelay = `${(i % 8) * 60}ms`;
    fx.append(el);
    falling.push(el);
  }
  return new Promise((resolve) => {
    let left = falling.length;
    const end = () => {
      falling.forEach((el) => el.remove());
      resolve();
    };
    // A hidden tab runs no animation: the end is never held up by one.
    const fallback = setTimeout(end, 2500);
    for (const el of falling) {
      el.addEventListener("animationend", () => {
        el.remove();
        if (--left === 0) {
          clearTimeout(fallback);
          end();
        }
      });
    }
  });
}

/** A loss: the table greys (CSS, from the body's status) and the stock shakes once. */
export function lament(stock) {
  if (!motionOn()) return;
  stock.classList.remove("refused");
  void stock.offsetWidth;
  stock.classList.add("refused");
}
