package dev.flyprof.demo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Handles one order: parse, validate, price, sign, record. */
final class OrderService {
    private static final Pattern EMAIL = Pattern.compile("[a-z0-9._-]+@[a-z0-9-]+(\\.[a-z]+)+");
    private static final Pattern SKU = Pattern.compile("SKU-[1-9][0-9]{4}");
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final Stats stats;
    private final ThreadLocal<MessageDigest> sha256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    OrderService(Stats stats) {
        this.stats = stats;
    }

    /** One line item of an order. */
    static final class Item {
        final String sku;
        final long qty;
        final double price;

        Item(String sku, long qty, double price) {
            this.sku = sku;
            this.qty = qty;
            this.price = price;
        }

        double amount() {
            return qty * price;
        }
    }

    /** Handles one order end to end. */
    void handle(String body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> order = (Map<String, Object>) Json.parse(body);
        List<Item> items = items(order);
        if (!valid(order, items)) {
            stats.reject();
            return;
        }
        double total = price(items);
        String signature = sign(order, items, total);
        stats.record((String) order.get("customer"), total, signature);
    }

    @SuppressWarnings("unchecked")
    private static List<Item> items(Map<String, Object> order) {
        List<Item> items = new ArrayList<>();
        for (Object o : (List<Object>) order.get("items")) {
            Map<String, Object> m = (Map<String, Object>) o;
            items.add(new Item((String) m.get("sku"), (Long) m.get("qty"),
                    ((Number) m.get("price")).doubleValue()));
        }
        return items;
    }

    /** Validates the customer's address and every SKU. */
    private static boolean valid(Map<String, Object> order, List<Item> items) {
        if (!EMAIL.matcher((String) order.get("customer")).matches()) {
            return false;
        }
        for (Item it : items) {
            if (!SKU.matcher(it.sku).matches()) {
                return false;
            }
        }
        return true;
    }

    /** Prices the order: the three largest lines get 10% off. */
    private static double price(List<Item> items) {
        List<Item> sorted = new ArrayList<>(items);
        sorted.sort(Comparator.comparingDouble(Item::amount).reversed()
                .thenComparing(it -> it.sku));
        double total = 0;
        for (int i = 0; i < sorted.size(); i++) {
            total += sorted.get(i).amount() * (i < 3 ? 0.9 : 1.0);
        }
        return Math.round(total * 100) / 100.0;
    }

    /** Signs the order: SHA-256 over a canonical text, rounds repeated as a stand-in for HMAC. */
    private String sign(Map<String, Object> order, List<Item> items, double total) {
        StringBuilder canonical = new StringBuilder();
        canonical.append(order.get("id")).append('|').append(order.get("customer")).append('|')
                .append(order.get("currency")).append('|').append(total);
        for (Item it : items) {
            canonical.append('|').append(it.sku).append('*').append(it.qty);
        }
        MessageDigest md = sha256.get();
        byte[] d = canonical.toString().getBytes(StandardCharsets.UTF_8);
        for (int round = 0; round < 12; round++) {
            md.update(d);
            d = md.digest();
        }
        char[] hex = new char[d.length * 2];
        for (int i = 0; i < d.length; i++) {
            hex[2 * i] = HEX[(d[i] >> 4) & 15];
            hex[2 * i + 1] = HEX[d[i] & 15];
        }
        return new String(hex);
    }
}
