// A yes/no question in the page's one native <dialog> (focus trapping and Escape come free).

/** Resolves true when the person confirms. */
export function confirmAction({ title, text, confirm = "Delete" }) {
  const dialog = document.getElementById("confirm-dialog");
  dialog.querySelector("#confirm-title").textContent = title;
  dialog.querySelector("#confirm-text").textContent = text;
  dialog.querySelector("button[value=confirm]").textContent = confirm;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
    dialog.showModal();
  });
}
