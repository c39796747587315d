// Light or dark: the system's choice unless the person picked one with the toggle (kept in localStorage
// on this device only; nothing is sent anywhere).
export type Theme = "light" | "dark" | "system";
const KEY = "svc-theme";

export function storedTheme(): Theme {
  const value = typeof localStorage === "undefined" ? null : localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

export function applyTheme(theme: Theme): void {
  if (theme === "system") {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(KEY);
  } else {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }
}

export function effectiveTheme(theme: Theme): "light" | "dark" {
  if (theme !== "system") return theme;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
