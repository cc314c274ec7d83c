// @ts-check
/*
 * Storefront script of the "Video gift message" app block (blocks/video-gift-message.liquid).
 *
 * The shopper ticks "Add a video message" and says who receives it and when. What this posts to the
 * cart is the contract with the server's order mapping (docs/shopify.md, "The storefront block"):
 *   - no add-on product set: the message's properties ride on the gift's own cart line;
 *   - an add-on product set (a "Video message" that does not ship): the add-on's line carries the
 *     properties and a random `_gift_key`, and the gift's line carries the same key.
 * A plain script with no dependencies: Shopify loads it into any theme from the block's schema.
 */
(() => {
  'use strict';

  const ELEMENT_NAME = 'video-gift-message';
  // The theme editor can load the script again when it re-renders a section.
  if (customElements.get(ELEMENT_NAME)) return;

  // The server's own e-mail rule (zod's, src/orders/request-schemas.ts): an address the shopper may
  // enter here is one the order accepts, so a message never fails later, out of the shopper's sight.
  const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
  // E.164: "+", a country code (never 0) and the number, 8 to 15 digits in all.
  const PHONE = /^\+[1-9]\d{7,14}$/;
  // People write numbers in groups, brackets and dots ("+1 (415) 555-0123", "+1.415.555.0123"); the
  // stored number has none of them (storefront probe: those were refused though the server takes them).
  const PHONE_SEPARATORS = /[\s\u00a0().-]/g;
  // Dawn's product form, and every theme's that posts to the cart, localized routes included.
  const CART_ADD_FORM = 'form[action*="/cart/add"]';

  /**
   * @typedef {'package' | 'date' | 'now'} SendTrigger
   * @typedef {{ name: string, email: string, phone: string, trigger: SendTrigger, sendOn: string, giftLine: string }} Message
   * @typedef {Record<string, string>} Properties
   * @typedef {{ key: string, title: string, quantity: number, requiresShipping: boolean, properties: Properties | null }} CartItem
   * @typedef {{
   *   page: 'product' | 'cart',
   *   productFormId: string,
   *   addOnVariantId: number | null,
   *   routes: { cartAdd: string, cartChange: string },
   *   cartItems: CartItem[],
   *   messages: Record<string, string>,
   * }} Config
   */

  /**
   * The message as line-item properties. A leading `_` hides a property from the shopper's cart and
   * receipt: the recipient's address and number are someone else's personal data.
   * @param {Message} message
   * @returns {Properties}
   */
  function videoProperties(message) {
    /** @type {Properties} */
    const properties = { _video_message: 'yes' };
    if (message.name) properties['Recipient name'] = message.name;
    if (message.email) properties._recipient_email = message.email;
    if (message.phone) properties._recipient_phone = message.phone;
    properties._send_trigger = message.trigger;
    if (message.trigger === 'date') properties['Send on'] = message.sendOn;
    return properties;
  }

  /**
   * The add-on's cart line: the message, and the key its gift's line carries too.
   * @param {number} variantId
   * @param {Message} message
   * @param {string} giftKey
   */
  function addOnItem(variantId, message, giftKey) {
    return { id: variantId, quantity: 1, properties: { ...videoProperties(message), _gift_key: giftKey } };
  }

  /**
   * What is wrong with the message: field → key of its text in the config's messages.
   * @param {Message} message
   * @param {string} today YYYY-MM-DD
   * @param {boolean} needsGift whether a cart line must be chosen (the cart page)
   * @returns {Record<string, string>}
   */
  function validationErrors(message, today, needsGift) {
    /** @type {Record<string, string>} */
    const errors = {};
    if (needsGift && !message.giftLine) errors.gift = 'gift_required';
    if (message.email && !EMAIL.test(message.email)) errors.email = 'email_invalid';
    if (message.phone && !PHONE.test(message.phone)) errors.phone = 'phone_invalid';
    if (!message.email && !message.phone) errors.contact = 'contact_required';
    if (message.trigger === 'date' && !message.sendOn) errors.sendOn = 'date_required';
    // YYYY-MM-DD strings compare as the days they name do.
    else if (message.trigger === 'date' && message.sendOn < today) errors.sendOn = 'date_past';
    return errors;
  }

  /** Today in the shopper's own calendar, as a date input's value (YYYY-MM-DD). */
  function localToday() {
    const now = new Date();
    /** @param {number} n */
    const pad = (n) => String(n).padStart(2, '0');
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  }

  /** A new random key linking a video message's add-on line to its gift's line. */
  function newGiftKey() {
    if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    // randomUUID needs a secure context: storefronts are https, a preview over http may not be.
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  /**
   * Whether a cart line has its message already: on the line itself, or an add-on line with its key.
   * @param {CartItem} item
   * @param {CartItem[]} items
   */
  function hasVideoMessage(item, items) {
    const properties = item.properties ?? {};
    if (properties._video_message) return true;
    const key = properties._gift_key;
    return Boolean(key) && items.some((other) => other !== item && other.properties?._gift_key === key);
  }

  /** The cart refused a change; Shopify says why in `description` ("All 1 Video message are in your cart."). */
  class CartError extends Error {
    /** @param {string} description */
    constructor(description) {
      super(description || 'cart request failed');
      this.description = description;
    }
  }

  /**
   * POSTs JSON to Shopify's cart API (/cart/add.js, /cart/change.js); resolves to its answer.
   * @param {string} url
   * @param {unknown} body
   * @returns {Promise<any>}
   */
  async function postJson(url, body) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.ok) return response.json();
    const answer = await response.json().catch(() => ({}));
    throw new CartError(typeof answer.description === 'string' ? answer.description : '');
  }

  /** @param {Event} event */
  function stopSubmission(event) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  class VideoGiftMessage extends HTMLElement {
    constructor() {
      super();
      /** @type {Config | null} */
      this.config = null;
      /** @type {HTMLInputElement[]} hidden inputs this block added to the product form */
      this.formInputs = [];
      // Errors show once the shopper has tried to add; from then on they follow every edit.
      this.showingErrors = false;
      this.busy = false;
      this.resubmitting = false;
      this.onSubmit = this.onSubmit.bind(this);
    }

    connectedCallback() {
      // Loaded before the page was parsed, the element is connected before its children exist.
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', () => this.isConnected && this.connectedCallback(), {
          once: true,
        });
        return;
      }
      if (!this.config) this.setUp();
      // Capture on window runs before the theme's own submit listener on its form (Dawn's form has
      // novalidate and adds by fetch), so an invalid message stops the add-to-cart.
      window.addEventListener('submit', this.onSubmit, true);
    }

    disconnectedCallback() {
      window.removeEventListener('submit', this.onSubmit, true);
    }

    setUp() {
      const configScript = this.querySelector('[data-video-gift-config]');
      this.config = /** @type {Config} */ (JSON.parse(configScript?.textContent ?? 'null'));
      this.input('send-on').min = localToday();
      this.addEventListener('input', () => this.onEdit());
      this.addEventListener('change', () => this.onEdit());
      if (this.config.page === 'cart') {
        this.fillGiftChoices(this.config);
        this.element('add').addEventListener('click', () => void this.addToCartLine());
      } else {
        // Enter in a field adds the gift, as in the theme's own fields: the block is not inside the
        // product form, so the browser would do nothing (storefront probe).
        this.addEventListener('keydown', (event) => this.onEnter(event));
      }
      this.onEdit();
    }

    /** @param {KeyboardEvent} event */
    onEnter(event) {
      const field = event.target;
      if (event.key !== 'Enter' || event.isComposing || !(field instanceof HTMLInputElement)) return;
      if (field.type === 'checkbox' || field.type === 'radio') return;
      const form = this.productForm();
      if (!form) return;
      event.preventDefault();
      const button = form.querySelector('[type="submit"][name="add"], [type="submit"]');
      form.requestSubmit(button instanceof HTMLElement ? button : undefined);
    }

    /** @param {string} name the element's data-video-gift attribute */
    element(name) {
      const element = this.querySelector(`[data-video-gift="${name}"]`);
      if (!(element instanceof HTMLElement)) throw new Error(`video gift message: no ${name} element`);
      return element;
    }

    /** @param {string} name */
    input(name) {
      return /** @type {HTMLInputElement} */ (this.element(name));
    }

    /** @returns {Message} */
    readMessage() {
      const trigger = this.querySelector('[data-video-gift="trigger"]:checked');
      const gift = this.querySelector('[data-video-gift="gift"]');
      return {
        name: this.input('name').value.trim(),
        email: this.input('email').value.trim(),
        // "0044 20 …": the international prefix many countries dial is written "+".
        phone: this.input('phone')
          .value.replace(PHONE_SEPARATORS, '')
          .replace(/^00(?=[1-9])/, '+'),
        trigger: /** @type {SendTrigger} */ (trigger instanceof HTMLInputElement ? trigger.value : 'package'),
        sendOn: this.input('send-on').value,
        // The chosen line's index in the config's cartItems ('' for none).
        giftLine: gift instanceof HTMLSelectElement ? gift.value : '',
      };
    }

    onEdit() {
      const config = /** @type {Config} */ (this.config);
      const enabled = this.input('enabled').checked;
      const message = this.readMessage();
      this.element('fields').hidden = !enabled;
      this.element('send-on-field').hidden = message.trigger !== 'date';
      this.showErrors(this.showingErrors && enabled ? this.errorsOf(message) : {});
      // Without an add-on the properties always match the fields, also for a theme that reads its
      // form at another moment than on submit.
      if (config.page === 'product' && config.addOnVariantId === null) {
        this.joinProductForm(enabled ? videoProperties(message) : {});
      }
    }

    /** @param {Message} message */
    errorsOf(message) {
      return validationErrors(message, localToday(), /** @type {Config} */ (this.config).page === 'cart');
    }

    /** @param {Record<string, string>} errors */
    showErrors(errors) {
      const messages = /** @type {Config} */ (this.config).messages;
      for (const slot of this.querySelectorAll('[data-video-gift-error]')) {
        const field = /** @type {HTMLElement} */ (slot).dataset.videoGiftError ?? '';
        if (field === 'form') continue;
        const key = errors[field];
        slot.textContent = key ? (messages[key] ?? key) : '';
        /** @type {HTMLElement} */ (slot).hidden = !key;
      }
      const invalid = {
        gift: 'gift' in errors,
        email: 'email' in errors || 'contact' in errors,
        phone: 'phone' in errors || 'contact' in errors,
        'send-on': 'sendOn' in errors,
      };
      for (const [name, isInvalid] of Object.entries(invalid)) {
        const field = this.querySelector(`[data-video-gift="${name}"]`);
        if (isInvalid) field?.setAttribute('aria-invalid', 'true');
        else field?.removeAttribute('aria-invalid');
      }
    }

    /**
     * Shows what is wrong and moves the focus there; true when the message can be sent.
     * @param {Message} message
     */
    check(message) {
      this.showingErrors = true;
      this.showFormError('');
      const errors = this.errorsOf(message);
      this.showErrors(errors);
      const firstInvalid = this.querySelector('[aria-invalid="true"]');
      if (firstInvalid instanceof HTMLElement) firstInvalid.focus();
      return Object.keys(errors).length === 0;
    }

    /** @param {string} text */
    showFormError(text) {
      const slot = /** @type {HTMLElement} */ (this.querySelector('[data-video-gift-error="form"]'));
      slot.textContent = text;
      slot.hidden = !text;
    }

    /** @param {unknown} error */
    showCartFailure(error) {
      const detail = error instanceof CartError && error.description ? ` ${error.description}` : '';
      this.showFormError(/** @type {Config} */ (this.config).messages.add_failed + detail);
    }

    /** @param {boolean} busy */
    setBusy(busy) {
      this.busy = busy;
      this.toggleAttribute('aria-busy', busy);
      const add = this.querySelector('[data-video-gift="add"]');
      if (add instanceof HTMLButtonElement) add.disabled = busy;
    }

    /** The theme's product form: Dawn's id, else the section's (or the page's) /cart/add form. */
    productForm() {
      const config = /** @type {Config} */ (this.config);
      const byId = document.getElementById(config.productFormId);
      if (byId instanceof HTMLFormElement) return byId;
      const scope = this.closest('.shopify-section') ?? document;
      const form = scope.querySelector(CART_ADD_FORM) ?? document.querySelector(CART_ADD_FORM);
      return form instanceof HTMLFormElement ? form : null;
    }

    /**
     * Puts exactly these properties on the product form, as hidden `properties[…]` inputs.
     * @param {Properties} properties
     */
    joinProductForm(properties) {
      for (const input of this.formInputs) input.remove();
      this.formInputs = [];
      const form = this.productForm();
      if (!form) return;
      // Not form.id: a product form has an input named "id" (the variant), which form.id returns.
      const formId = form.getAttribute('id');
      for (const [name, value] of Object.entries(properties)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = `properties[${name}]`;
        input.value = value;
        // Joined by the form attribute when the form has an id, they stay put when the theme
        // re-renders its form (Dawn does on a variant change); otherwise they go inside it.
        if (formId) {
          input.setAttribute('form', formId);
          this.element('form-inputs').append(input);
        } else {
          form.append(input);
        }
        this.formInputs.push(input);
      }
    }

    /**
     * A submit of the product form (product page): let it through with the message, or stop it.
     * @param {SubmitEvent} event
     */
    onSubmit(event) {
      const config = /** @type {Config} */ (this.config);
      if (config.page !== 'product' || this.resubmitting) return;
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || form !== this.productForm()) return;
      // One gift at a time while its add-on is on its way, or the second would go without one.
      if (this.busy) return stopSubmission(event);
      if (!this.input('enabled').checked) return;
      const message = this.readMessage();
      if (!this.check(message)) return stopSubmission(event);
      if (config.addOnVariantId === null) {
        this.joinProductForm(videoProperties(message));
        return;
      }
      stopSubmission(event);
      void this.addWithAddOn(form, event.submitter, message, config.addOnVariantId);
    }

    /**
     * The add-on first, then the gift through the theme's own add-to-cart (its cart drawer, its
     * redirect) with the same key: if the add-on is refused, no gift goes without its message.
     * @param {HTMLFormElement} form
     * @param {HTMLElement | null} submitter
     * @param {Message} message
     * @param {number} addOnVariantId
     */
    async addWithAddOn(form, submitter, message, addOnVariantId) {
      const config = /** @type {Config} */ (this.config);
      const giftKey = newGiftKey();
      this.setBusy(true);
      try {
        await postJson(`${config.routes.cartAdd}.js`, { items: [addOnItem(addOnVariantId, message, giftKey)] });
      } catch (error) {
        this.showCartFailure(error);
        this.setBusy(false);
        return;
      }
      this.setBusy(false);
      this.joinProductForm({ _gift_key: giftKey });
      // The theme reads the form while the submit event runs (a native submit too), so the key can
      // go right after: the next gift gets a key of its own.
      this.resubmitting = true;
      try {
        const button = submitter instanceof HTMLButtonElement && submitter.form === form ? submitter : null;
        form.requestSubmit(button);
      } finally {
        this.resubmitting = false;
        this.joinProductForm({});
      }
    }

    /**
     * The cart page's gift choice: the lines that ship; one with a message already can't take another.
     * @param {Config} config
     */
    fillGiftChoices(config) {
      const select = /** @type {HTMLSelectElement} */ (this.element('gift'));
      const gifts = config.cartItems.filter((item) => item.requiresShipping);
      for (const item of gifts) {
        const option = document.createElement('option');
        // The line's index, not its key: the key changes with the line's properties.
        option.value = String(config.cartItems.indexOf(item));
        option.textContent = item.quantity > 1 ? `${item.title} × ${item.quantity}` : item.title;
        if (hasVideoMessage(item, config.cartItems)) {
          option.disabled = true;
          option.textContent += ` (${config.messages.has_message})`;
        }
        select.append(option);
      }
      const free = gifts.find((item) => !hasVideoMessage(item, config.cartItems));
      select.value = free ? String(config.cartItems.indexOf(free)) : '';
      if (!free) {
        const slot = /** @type {HTMLElement} */ (this.querySelector('[data-video-gift-error="gift"]'));
        slot.textContent = config.messages.no_gifts ?? '';
        slot.hidden = false;
        /** @type {HTMLButtonElement} */ (this.element('add')).disabled = true;
      }
    }

    /** The cart page: the message goes to the chosen line, then the cart reloads to show it. */
    async addToCartLine() {
      const config = /** @type {Config} */ (this.config);
      const message = this.readMessage();
      if (this.busy || !this.check(message)) return;
      const line = config.cartItems[Number(message.giftLine)];
      if (!line) return;
      const properties = line.properties ?? {};
      const change = `${config.routes.cartChange}.js`;
      this.setBusy(true);
      try {
        if (config.addOnVariantId === null) {
          // /cart/change.js replaces a line's properties: the ones it has are sent again.
          await postJson(change, {
            id: line.key,
            quantity: line.quantity,
            properties: { ...properties, ...videoProperties(message) },
          });
        } else {
          // A key left by an earlier try whose add-on was refused is used again.
          const giftKey = properties._gift_key || newGiftKey();
          if (!properties._gift_key) {
            const cart = await postJson(change, {
              id: line.key,
              quantity: line.quantity,
              properties: { ...properties, _gift_key: giftKey },
            });
            // Should the add-on be refused, a retry must find the line under its new key.
            line.properties = { ...properties, _gift_key: giftKey };
            line.key =
              cart?.items?.find((/** @type {CartItem} */ item) => item.properties?._gift_key === giftKey)?.key ??
              line.key;
          }
          await postJson(`${config.routes.cartAdd}.js`, {
            items: [addOnItem(config.addOnVariantId, message, giftKey)],
          });
        }
        location.reload();
      } catch (error) {
        this.showCartFailure(error);
        this.setBusy(false);
      }
    }
  }

  customElements.define(ELEMENT_NAME, VideoGiftMessage);
})();
