#!/usr/bin/env perl
# docs.layers (CTest): the include graph against the layer order of docs/architecture.md §1.
# The table there maps every file of lib/ to a module and every module to a layer; a file may
# include the headers of its own module and of modules in lower layers only, so the modules form
# no cycle. The suite's folders keep theirs: cases/case.h includes nothing of the engine, no file
# of cases/ or study/ includes the command line, and analysis/ includes none of them.
# Usage: check_layers.pl SOURCE_DIR
use strict;
use warnings;

my $root = shift @ARGV or die "usage: check_layers.pl SOURCE_DIR\n";
chdir $root or die "check_layers: cannot enter $root: $!\n";

# the table: | layer | module | files (space-separated basenames without extension) |
open my $doc, '<', 'docs/architecture.md' or die "check_layers: docs/architecture.md: $!\n";
my (%layer, %module_of);
my $in = 0;
while (<$doc>) {
    $in = 1 if /^<!-- layers: begin -->/;
    $in = 0 if /^<!-- layers: end -->/;
    next unless $in && /^\|\s*(\d+)\s*\|\s*`?([a-z]+)`?\s*\|\s*([^|]+)\|/;
    my ($l, $m, $files) = ($1, $2, $3);
    $layer{$m} = $l;
    for my $f (split /[\s,]+/, $files) {
        $f =~ s/`//g;
        next if $f eq '';
        die "check_layers: '$f' is in two modules ($module_of{$f}, $m)\n" if exists $module_of{$f};
        $module_of{$f} = $m;
    }
}
close $doc;
die "check_layers: no layer table in docs/architecture.md\n" unless %layer;

my @problems;
my $edges = 0;
my @files = (glob('lib/src/*.[ch]'), glob('lib/include/ccb/*.h'));
for my $path (@files) {
    (my $base = $path) =~ s{.*/}{};
    (my $stem = $base) =~ s/\.[ch]$//;
    my $m = $module_of{$stem};
    unless (defined $m) {
        push @problems, "$path: its file '$stem' is in no module of the table";
        next;
    }
    open my $fh, '<', $path or die "check_layers: $path: $!\n";
    while (my $line = <$fh>) {
        next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
        my $header = $1;
        (my $inc = $header) =~ s{.*/}{};
        $inc =~ s/\.h$//;
        my $im = $module_of{$inc};
        unless (defined $im) {
            push @problems, "$path:$.: includes '$header', which is in no module of the table";
            next;
        }
        ++$edges;
        next if $im eq $m;
        push @problems, "$path:$.: module $m (layer $layer{$m}) includes $header of module $im "
                      . "(layer $layer{$im}): a layer may include only lower ones"
            unless $layer{$im} < $layer{$m};
    }
    close $fh;
}

# the suite's folders: cases/case.h <- study/study.h <- cli/cli.h; analysis/ below them all
my %rules = (
    'cases/case.h' => qr/^(study|cli)\.h$/,
    'study/*.[ch]' => qr/^(cli)\.h$/,
    'cases/*.c'    => qr/^(cli)\.h$/,
    'analysis/*.[ch]' => qr/^(case|study|cli)\.h$/,
);
for my $pattern (sort keys %rules) {
    for my $path (glob $pattern) {
        open my $fh, '<', $path or die "check_layers: $path: $!\n";
        while (my $line = <$fh>) {
            next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
            my $header = $1;
            (my $inc = $header) =~ s{.*/}{};
            push @problems, "$path:$.: includes $header of a higher folder (docs/architecture.md §2)"
                if $inc =~ $rules{$pattern};
        }
        close $fh;
    }
}

print "$_\n" for @problems;
printf "check_layers: %d modules, %d includes of lib/ checked, %d problems\n", scalar(keys %layer),
    $edges, scalar @problems;
exit(@problems ? 1 : 0);
