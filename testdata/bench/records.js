// records.js holds the object shapes of the generated benchmark heaps:
// customers, and orders with nested lines, an optional note and a closure.
'use strict';
class Customer { constructor(i) { this.id = i; this.name = 'customer-' + i; this.tags = ['t' + (i % 97), 'g' + (i % 13)]; } }
class Order {
  constructor(i, c) {
    this.id = i;
    this.customer = c;
    this.lines = [{ sku: 'sku-' + (i % 5003), qty: i % 7 }, { sku: 'sku-' + (i % 4999), qty: 1 }];
    this.note = i % 3 === 0 ? 'note ' + i.toString(36) : null;
    this.total = i * 1.5;
    this.onPaid = () => this.id;
  }
}
module.exports = { Customer, Order };
