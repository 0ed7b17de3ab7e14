/** Labels for the scroll buttons Cloudscape's Tabs show once the tab headers are wider than the page (axe's button-name). */
export const TAB_SCROLL_LABELS = { scrollLeftAriaLabel: "Scroll tabs left", scrollRightAriaLabel: "Scroll tabs right" };
