// HlogCheck: reads an HdrHistogram interval log with HdrHistogram's own HistogramLogReader
// and prints, per histogram, what it decoded: tag, start and end (seconds since the epoch),
// total count, p50, p99, p99.9 and max (HdrHistogram's getValueAtPercentile and
// getMaxValue). Run with the Java source launcher and the HdrHistogram jar on the class path:
//   java -cp /usr/share/java/hdrhistogram.jar HlogCheck.java FILE.hlog
// It is the oracle for flyprof's .hlog output (tests/integration/test_jitter.py).
import java.io.File;
import java.util.Locale;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HlogCheck {
    public static void main(String[] args) throws Exception {
        HistogramLogReader reader = new HistogramLogReader(new File(args[0]));
        int n = 0;
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
            Histogram h = (Histogram) e;
            System.out.printf(Locale.ROOT, "hist %s %.3f %.3f %d %d %d %d %d%n", h.getTag(),
                h.getStartTimeStamp() / 1000.0, h.getEndTimeStamp() / 1000.0, h.getTotalCount(),
                h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), h.getMaxValue());
            n++;
        }
        System.out.println("histograms " + n);
    }
}
