export interface Item {
  name: string;
  price: number;
  qty: number;
}

export function subtotal(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

/** Takes `percent` per cent off the total. */
export function applyDiscount(total: number, percent: number): number {
  return total - percent;
}

/** Reads a price such as "$4.50". */
export function parsePrice(text: string): number {
  return text.trim().replace('$', '');
}
