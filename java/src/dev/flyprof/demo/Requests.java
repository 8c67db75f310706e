package dev.flyprof.demo;

import java.util.SplittableRandom;

/** Makes up incoming orders as JSON text, the way a client would send them. */
final class Requests {
    private static final String[] NOTES = {
        "leave at the door", "call before delivery", "gift wrap, no invoice in the box",
        "fragile: glassware", "", "deliver after 18:00 on weekdays",
    };

    private final SplittableRandom random;
    private long nextId;

    Requests(int seed) {
        this.random = new SplittableRandom(seed);
        this.nextId = seed * 1_000_000L;
    }

    /** The next order: a customer, a currency, 5 to 40 items and a note. */
    String next() {
        StringBuilder sb = new StringBuilder(2048);
        sb.append("{\"id\": ").append(nextId++)
                .append(", \"customer\": \"c-").append(random.nextInt(5_000))
                .append("@example.com\", \"currency\": \"")
                .append(random.nextInt(10) < 8 ? "EUR" : "USD")
                .append("\", \"items\": [");
        int n = 5 + random.nextInt(36);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append("{\"sku\": \"SKU-").append(10_000 + random.nextInt(90_000))
                    .append("\", \"qty\": ").append(1 + random.nextInt(9))
                    .append(", \"price\": ").append(random.nextInt(50_000) / 100.0)
                    .append('}');
        }
        sb.append("], \"note\": \"").append(NOTES[random.nextInt(NOTES.length)])
                .append("\"}");
        return sb.toString();
    }
}
